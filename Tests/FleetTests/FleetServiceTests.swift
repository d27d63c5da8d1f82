import CastProtocol
import Fleet
import GatewayModel
import JSON
import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// FleetService against the fake MQTT client on the manual clock:
/// coalescing, reconnect backoff, commands, refusals.
final class FleetServiceTests: XCTestCase {
    private var clock: ManualTimeSource!
    private var client: FakeMQTTClient!
    private var handler: RecordingHandler!
    private var stateFeed: AsyncStream<GatewayState>.Continuation!
    private var task: Task<Void, any Error>?
    private var service: FleetService!
    private let statuses = Recorded<FleetStatus>()
    private let offers = Recorded<UpdateRequest?>()

    private var keyFeed: AsyncStream<KeyPress>.Continuation!

    private func start(handler: RecordingHandler = RecordingHandler(), context: HomeAssistantContext = HomeAssistantContext(),
                       _ configure: (inout FleetSettings) -> Void = { _ in }) async {
        clock = ManualTimeSource()
        client = FakeMQTTClient()
        self.handler = handler
        var settings = FleetSettings(broker: .init(host: "127.0.0.1", port: 1883, tls: false), room: "r1", groups: ["floor3"])
        configure(&settings)
        let (states, feed) = AsyncStream.makeStream(of: GatewayState.self)
        stateFeed = feed
        let client = self.client!
        let (keys, keyFeed) = AsyncStream.makeStream(of: KeyPress.self)
        self.keyFeed = keyFeed
        service = FleetService(settings: settings, handler: handler, states: { states },
                               extras: FleetStatusExtras(version: "1.0", startedAt: clock.now, inputs: ["lirc"]),
                               timeSource: clock, onStatusChange: { [statuses] status in statuses.append(status) },
                               context: context, keys: { keys }, wallTime: { 1_796_198_400 },
                               onUpdateOffer: { [offers] offer in offers.append(offer) },
                               makeClient: { _ in client })
        let service = self.service!
        task = Task { try await service.run() }
        let connecting = await eventually { self.client.connectCalls == 1 }
        XCTAssertTrue(connecting)
    }

    override func tearDown() async throws {
        task?.cancel()
        _ = try? await task?.value
        task = nil
    }

    private func connect() async {
        client.emit(.connected(sessionPresent: false))
        let up = await eventually { self.service.status.connected }
        XCTAssertTrue(up)
    }

    private func playing(_ title: String, volume: Double = 0.4) -> GatewayState {
        var state = GatewayState()
        state.link = .connected
        state.deviceName = "TV"
        state.deviceAddress = "127.0.0.1:8009"
        state.player = .playing
        state.title = title
        state.volume = volume
        return state
    }

    private func stateTitles() -> [String] {
        client.published(on: "castgw/r1/state").compactMap { try? JSONValue(parsing: $0.payload)["title"]?.stringValue }
    }

    /// The fleet's retained announcement reaches the gateway; one that is not
    /// valid withdraws the offer (never a half-checked URL), an empty one too.
    func testTheFleetsUpdateAnnouncementIsHandedOn() async throws {
        await start()
        await connect()
        let sha = String(repeating: "1f", count: 32)
        client.emit(.message(MQTTMessage(topic: "castgw/all/update", text: #"{"version":"2.1","url":"https://u/b.raucb","sha256":"\#(sha)"}"#,
                                         retain: true)))
        let offered = try UpdateRequest(url: "https://u/b.raucb", sha256: sha, version: "2.1")
        let first = await eventually { self.offers.all == [offered] }
        XCTAssertTrue(first, "\(offers.all)")
        client.emit(.message(MQTTMessage(topic: "castgw/all/update", text: #"{"version":"2.2","url":"file:///b.raucb"}"#, retain: true)))
        let withdrawn = await eventually { self.offers.all == [offered, nil] }
        XCTAssertTrue(withdrawn, "\(offers.all)")
        XCTAssertTrue(handler.received.isEmpty, "an announcement is no command")
    }

    func testOnConnectSubscribesAndAnnouncesOnlineAndDiscovery() async {
        await start()
        await connect()
        let announced = await eventually { !self.client.published(on: "castgw/r1/availability").isEmpty }
        XCTAssertTrue(announced)
        XCTAssertEqual(client.subscriptions.first, ["castgw/r1/cmd", "castgw/all/cmd", "castgw/group/floor3/cmd", "castgw/all/update", "homeassistant/status",
                                                    "homeassistant/+/castgw_r1/+/config"])
        let online = client.published(on: "castgw/r1/availability")
        XCTAssertEqual(online, [MQTTMessage(topic: "castgw/r1/availability", text: "online", qos: 1, retain: true)])
        XCTAssertEqual(client.published.filter { $0.topic.hasPrefix("homeassistant/") }.count, 15)
    }

    func testStateIsCoalescedToOnePublishPerIntervalAndTheNewestAlwaysGoesOut() async {
        await start()
        await connect()
        stateFeed.yield(playing("one"))
        let first = await eventually { self.stateTitles() == ["one"] }
        XCTAssertTrue(first, "the first state goes out at once")
        stateFeed.yield(playing("two"))
        stateFeed.yield(playing("three"))
        await clock.settle()
        XCTAssertEqual(stateTitles(), ["one"], "no second publish within 250 ms")
        await clock.advance(by: .milliseconds(200), step: .milliseconds(50))
        XCTAssertEqual(stateTitles(), ["one"])
        await clock.advance(by: .milliseconds(50), step: .milliseconds(50))
        let trailing = await eventually { self.stateTitles() == ["one", "three"] }
        XCTAssertTrue(trailing, "the newest state goes out on the trailing edge: \(stateTitles())")
        // Quiet for longer than the interval: the next change goes out at once.
        await clock.advance(by: .seconds(1))
        stateFeed.yield(playing("four"))
        let immediate = await eventually { self.stateTitles() == ["one", "three", "four"] }
        XCTAssertTrue(immediate)
        let retained = client.published(on: "castgw/r1/state").allSatisfy { $0.retain && $0.qos == 1 }
        XCTAssertTrue(retained)
    }

    func testAStateEqualToThePublishedOneIsNotSentAgain() async {
        await start()
        await connect()
        stateFeed.yield(playing("one"))
        let first = await eventually { self.stateTitles() == ["one"] }
        XCTAssertTrue(first)
        stateFeed.yield(playing("one"))
        await clock.advance(by: .seconds(1))
        XCTAssertEqual(stateTitles(), ["one"])
    }

    func testStateWaitsForTheConnectionAndIsRepublishedAfterAReconnect() async {
        await start()
        stateFeed.yield(playing("early"))
        await clock.settle()
        XCTAssertEqual(stateTitles(), [], "nothing is published before the broker accepts us")
        await connect()
        let published = await eventually { self.stateTitles() == ["early"] }
        XCTAssertTrue(published)
        client.emit(.disconnected(MQTTError(.connectionLost, "lost")))
        let down = await eventually { !self.service.status.connected }
        XCTAssertTrue(down)
        await clock.advance(by: .seconds(2))
        let retried = await eventually { self.client.connectCalls == 2 }
        XCTAssertTrue(retried)
        client.emit(.connected(sessionPresent: true))
        await clock.advance(by: .milliseconds(300), step: .milliseconds(50))
        let again = await eventually { self.stateTitles() == ["early", "early"] }
        XCTAssertTrue(again, "the state is published again after reconnecting: \(stateTitles())")
    }

    func testReconnectsWithGrowingJitteredBackoffAndReportsTheProblemOnce() async {
        await start()
        let logged = Recorded<String>()
        Logger.setSink { level, line in if level <= .warning { logged.append(line) } }
        defer { Logger.setSink(nil) }
        let refusal = MQTTError(.refused, "the MQTT broker mqtt://127.0.0.1:1883 refused the connection: not authorised; check username and password-file")
        client.emit(.refused(refusal))
        let problem = await eventually { self.service.status.problem == refusal.message }
        XCTAssertTrue(problem)
        // First delay: 1 s ± 50%.
        await clock.advance(by: .milliseconds(450), step: .milliseconds(50))
        XCTAssertEqual(client.connectCalls, 1, "no retry before 0.5 s")
        await clock.advance(by: .milliseconds(1100), step: .milliseconds(50))
        let second = await eventually { self.client.connectCalls == 2 }
        XCTAssertTrue(second, "retried within 1.5 s")
        client.emit(.refused(refusal))
        // Second delay: 2 s ± 50%, so not before 1 s.
        await clock.advance(by: .milliseconds(950), step: .milliseconds(50))
        XCTAssertEqual(client.connectCalls, 2)
        await clock.advance(by: .milliseconds(2100), step: .milliseconds(50))
        let third = await eventually { self.client.connectCalls == 3 }
        XCTAssertTrue(third)
        XCTAssertEqual(logged.all.filter { $0.contains("refused") }.count, 1, "a repeated problem is a warning once")
        XCTAssertTrue(statuses.all.contains(FleetStatus(connected: false, problem: refusal.message)))
    }

    func testAnAttemptThatCannotStartIsRetried() async {
        await start()
        client.failNextConnect(with: MQTTError(.unreachable, "cannot connect: Connection refused"))
        client.emit(.disconnected(MQTTError(.connectionLost, "lost")))
        await clock.advance(by: .seconds(2))
        let failed = await eventually { self.service.status.problem == "cannot connect: Connection refused" }
        XCTAssertTrue(failed)
        await clock.advance(by: .seconds(4))
        let retried = await eventually { self.client.connectCalls == 3 }
        XCTAssertTrue(retried)
    }

    /// A broker that says why (MQTT 5 reason 0x8E, mosquitto 2.0.15 and later):
    /// the first takeover is named at once, stays shown while the room is
    /// connected again, and clears once a connection has stayed up 2 minutes.
    func testASessionTakenOverIsNamedAtOnceAndClearsOnceTheConnectionStaysUp() async {
        await start()
        await connect()
        client.emit(.disconnected(MQTTError(.sessionTakenOver, "another MQTT client ... took over this connection")))
        let named = await eventually { self.service.status.problem?.hasPrefix("another gateway uses room r1 on mqtt://127.0.0.1:1883 (same client id r1)") == true }
        XCTAssertTrue(named, "\(service.status)")
        await clock.advance(by: .seconds(2))
        let again = await eventually { self.client.connectCalls == 2 }
        XCTAssertTrue(again)
        client.emit(.connected(sessionPresent: true))
        let shown = await eventually { self.service.status.connected }
        XCTAssertTrue(shown)
        XCTAssertEqual(service.status.problem?.hasPrefix("another gateway uses room r1"), true, "shown while connected")
        await clock.advance(by: .seconds(121), step: .seconds(1))
        let cleared = await eventually { self.service.status == FleetStatus(connected: true, problem: nil) }
        XCTAssertTrue(cleared, "\(service.status)")
    }

    /// A broker that restarts (or is busy) says why in its DISCONNECT: however
    /// often that happens soon after connecting, it is not taken for another
    /// gateway with the same room, and the broker's reason is what is shown.
    func testBrokerDisconnectsWithAReasonAreNotTakenForATakeover() async {
        await start()
        for attempt in 1...4 {
            await connect()
            client.emit(.disconnected(MQTTError(.brokerDisconnected, "the MQTT broker mqtt://127.0.0.1:1883 disconnected the gateway: Server shutting down")))
            let shown = await eventually { self.service.status.problem?.hasSuffix("Server shutting down") == true }
            XCTAssertTrue(shown, "attempt \(attempt): \(service.status)")
            XCTAssertFalse(service.status.problem?.contains("another gateway") ?? false, "attempt \(attempt): \(service.status)")
            let before = client.connectCalls
            await clock.advance(by: .seconds(20), step: .seconds(1))  // beyond the backoff, within the connect timeout
            let again = await eventually { self.client.connectCalls == before + 1 }
            XCTAssertTrue(again, "attempt \(attempt): \(client.connectCalls) connects")
        }
    }

    /// `command-wait = 0`: a command that needs the receiver runs at once, as before.
    func testACommandWaitOfZeroRunsCommandsAtOnce() async {
        await start(handler: RecordingHandler(kinds: { _ in .needsReceiver })) { $0.commandWait = .zero }
        await connect()
        var away = GatewayState()
        away.link = .connecting
        stateFeed.yield(away)
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: "pause")))
        let ran = await eventually { self.handler.received == ["pause"] }
        XCTAssertTrue(ran, "\(handler.received)")
    }

    func testCommandsRunInOrderAndAreAnswered() async {
        await start()
        await connect()
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: "pause")))
        client.emit(.message(MQTTMessage(topic: "castgw/all/cmd", text: #"{"id":"a1","command":"vol 30"}"#)))
        client.emit(.message(MQTTMessage(topic: "castgw/group/floor3/cmd", text: #"{"id":7,"command":"stop"}"#)))
        client.emit(.message(MQTTMessage(topic: "castgw/group/floor4/cmd", text: "play")))
        let replies = await eventually { self.client.published(on: "castgw/r1/reply").count == 3 }
        XCTAssertTrue(replies)
        XCTAssertEqual(handler.received, ["pause", "vol 30", "stop"])
        XCTAssertEqual(client.published(on: "castgw/r1/reply").map(\.text), [
            #"{"id":null,"ok":true,"lines":["ok: pause"]}"#,
            #"{"id":"a1","ok":true,"lines":["ok: vol 30"]}"#,
            #"{"id":7,"ok":true,"lines":["ok: stop"]}"#,
        ])
    }

    func testMalformedPayloadsAreAnsweredAndNothingElseHappens() async {
        await start()
        await connect()
        let payloads: [[UInt8]] = [
            [0xFF, 0xFE, 0x00, 0x01],
            [UInt8](repeating: 0x61, count: 1 << 20),
            Array(#"{"id":"x","command":"#.utf8),
            Array(#"{"id":"y"}"#.utf8),
            Array("pause\u{0}".utf8),
        ]
        for payload in payloads { client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", payload: payload))) }
        let replies = await eventually { self.client.published(on: "castgw/r1/reply").count == payloads.count }
        XCTAssertTrue(replies)
        let parsed = client.published(on: "castgw/r1/reply").compactMap { try? JSONValue(parsing: $0.payload) }
        XCTAssertEqual(parsed.map { $0["ok"] }, Array(repeating: .bool(false), count: payloads.count))
        XCTAssertEqual(parsed.map { $0["id"] }, [.null, .null, .null, .string("y"), .null])
        XCTAssertTrue(parsed[1]["lines"]?.arrayValue?.first?.stringValue?.contains("1048576 bytes") == true)
        XCTAssertEqual(handler.received, [])
        XCTAssertEqual(client.published.filter { $0.topic == "castgw/r1/state" }, [])
    }

    func testRetainedCommandsAreIgnored() async {
        await start()
        await connect()
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: "stop", retain: true)))
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: "play")))
        let ran = await eventually { self.handler.received == ["play"] }
        XCTAssertTrue(ran)
    }

    func testCredsAreRefusedByDefaultAndNeverEchoed() async {
        await start()
        await connect()
        let logged = Recorded<String>()
        Logger.setSink { _, line in logged.append(line) }
        defer { Logger.setSink(nil) }
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: #"{"id":"c","command":"creds s3cr3t-token"}"#)))
        let replied = await eventually { self.client.published(on: "castgw/r1/reply").count == 1 }
        XCTAssertTrue(replied)
        XCTAssertEqual(handler.received, [])
        let reply = client.published(on: "castgw/r1/reply")[0].text
        XCTAssertTrue(reply.contains("allow-credentials"), reply)
        XCTAssertFalse((client.published.map(\.text) + logged.all).contains { $0.contains("s3cr3t") })
    }

    func testCredsWhenAllowedRunButTheSecretStaysOutOfRepliesAndLogs() async {
        await start { $0.allowCredentials = true }
        let logged = Recorded<String>()
        Logger.setSink { _, line in logged.append(line) }
        defer { Logger.setSink(nil) }
        await connect()
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: "creds s3cr3t-token")))
        let replied = await eventually { self.client.published(on: "castgw/r1/reply").count == 1 }
        XCTAssertTrue(replied)
        let reply = client.published(on: "castgw/r1/reply")[0].text
        // RecordingHandler echoes the line; the service scrubs the secret out.
        XCTAssertEqual(reply, #"{"id":null,"ok":true,"lines":["ok: creds <redacted>"]}"#)
        XCTAssertFalse(logged.all.contains { $0.contains("s3cr3t") })
        XCTAssertTrue(logged.all.contains { $0.contains("creds <redacted>") })
    }

    /// A command held for the receiver when the service stops (a shutdown, a
    /// reload) is answered before the goodbye, not dropped without a word.
    func testCommandsStillHeldAtStopAreAnswered() async {
        await start(handler: RecordingHandler(kinds: { $0 == "status" ? .query : .needsReceiver }))
        await connect()
        var away = GatewayState()
        away.link = .connecting
        stateFeed.yield(away)
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: #"{"id":"late","command":"checkout"}"#)))
        // A query behind it runs at once: by then the checkout has been taken in, and held.
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: "status")))
        let handled = await eventually { self.handler.received == ["status"] && self.client.published(on: "castgw/r1/reply").count == 1 }
        XCTAssertTrue(handled, "\(handler.received)")
        task?.cancel()
        _ = try? await task?.value
        task = nil
        XCTAssertEqual(handler.received, ["status"], "a held command ran at stop")
        XCTAssertEqual(client.published(on: "castgw/r1/reply").dropFirst().map(\.text), [
            #"{"id":"late","ok":false,"lines":["error: not run: the gateway stopped (or reloaded its settings) while the command waited for the receiver; send it again"]}"#,
        ])
    }

    func testStoppingPublishesOfflineAndDisconnects() async {
        await start()
        await connect()
        task?.cancel()
        _ = try? await task?.value
        task = nil
        XCTAssertEqual(client.goodbye, [MQTTMessage(topic: "castgw/r1/availability", text: "offline", qos: 1, retain: true)])
        XCTAssertFalse(service.status.connected)
    }

    private func discoveryCount() -> Int { client.published.filter { $0.topic.hasPrefix("homeassistant/") }.count }

    func testHomeAssistantRestartGetsTheDiscoveryAgainAtMostOncePerInterval() async {
        await start()
        await connect()
        let first = await eventually { self.discoveryCount() == 15 }
        XCTAssertTrue(first)
        // Right after the configs went out: they are retained, nothing is resent.
        client.emit(.message(MQTTMessage(topic: "homeassistant/status", text: "online", qos: 1)))
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: "status", qos: 1)))
        let answered = await eventually { !self.client.published(on: "castgw/r1/reply").isEmpty }
        XCTAssertTrue(answered)
        XCTAssertEqual(discoveryCount(), 15)
        await clock.advance(by: FleetService.rediscoveryInterval, step: .seconds(10))
        client.emit(.message(MQTTMessage(topic: "homeassistant/status", text: "online", qos: 1)))
        let again = await eventually { self.discoveryCount() == 30 }
        XCTAssertTrue(again)
    }

    func testAConfigNoLongerAnnouncedIsRemovedAndACurrentOneIsNot() async {
        await start()
        await connect()
        let first = await eventually { self.discoveryCount() == 15 }
        XCTAssertTrue(first)
        // Retained leftovers from an earlier run: a preset removed since, and a current entity.
        client.emit(.message(MQTTMessage(topic: "homeassistant/button/castgw_r1/preset_7/config", text: "{}", qos: 1, retain: true)))
        client.emit(.message(MQTTMessage(topic: "homeassistant/button/castgw_r1/play/config", text: "{}", qos: 1, retain: true)))
        let removed = await eventually { self.client.published(on: "homeassistant/button/castgw_r1/preset_7/config").count == 1 }
        XCTAssertTrue(removed)
        XCTAssertEqual(client.published(on: "homeassistant/button/castgw_r1/preset_7/config").first,
                       MQTTMessage(topic: "homeassistant/button/castgw_r1/preset_7/config", payload: [], qos: 1, retain: true))
        XCTAssertEqual(client.published(on: "homeassistant/button/castgw_r1/play/config").count, 1, "announced once, never removed")
    }

    func testTheLinkTopicFollowsTheCastLinkOnlyWhenItChanges() async {
        await start()
        await connect()
        stateFeed.yield(playing("A"))
        let up = await eventually { self.client.published(on: "castgw/r1/link").map(\.text) == ["online"] }
        XCTAssertTrue(up)
        stateFeed.yield(playing("B"))
        var down = playing("B")
        down.link = .reconnecting(retryInSeconds: 2)
        stateFeed.yield(down)
        let off = await eventually { self.client.published(on: "castgw/r1/link").map(\.text) == ["online", "offline"] }
        XCTAssertTrue(off, "\(client.published(on: "castgw/r1/link").map(\.text))")
        XCTAssertTrue(client.published(on: "castgw/r1/link").allSatisfy(\.retain))
    }

    func testAFailedCommandShowsAsTheProblemForAWhile() async {
        await start(handler: RecordingHandler(reply: { FleetReply(ok: $0 != "next", lines: $0 == "next" ? ["error: nothing to skip to"] : ["ok"]) }))
        await connect()
        stateFeed.yield(playing("A"))
        let published = await eventually { !self.client.published(on: "castgw/r1/state").isEmpty }
        XCTAssertTrue(published)
        let sleepers = clock.sleeperCount
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: "next", qos: 1)))
        func problem() -> JSONValue? {
            client.published(on: "castgw/r1/state").last.flatMap { try? JSONValue(parsing: $0.payload)["problem"] }
        }
        let replied = await eventually { !self.client.published(on: "castgw/r1/reply").isEmpty }
        XCTAssertTrue(replied)
        await clock.advance(by: FleetService.publishInterval)  // one state publish per interval
        let shown = await eventually { problem() == "the command 'next' failed: nothing to skip to" }
        XCTAssertTrue(shown, "\(String(describing: problem()))")
        // The expiry timer sleeps before the clock moves (its deadline counts from now).
        let armed = await eventually { self.clock.sleeperCount > sleepers }
        XCTAssertTrue(armed)
        await clock.advance(by: FleetService.commandFailureShown, step: .seconds(10))
        let cleared = await eventually { problem() == .null }
        XCTAssertTrue(cleared, "\(String(describing: problem()))")
    }

    func testRemoteKeysBecomeEventsAndAHeldKeyOneCountedReport() async {
        await start(context: HomeAssistantContext(keySources: ["lirc"], mappedKeys: ["KEY_VOLUMEUP"]))
        await connect()
        let sleepers = clock.sleeperCount
        keyFeed.yield(KeyPress(event: InputEvent(source: .lirc, key: "KEY_RED", remote: "devinput"), mapped: false))
        keyFeed.yield(KeyPress(event: InputEvent(source: .lirc, key: "KEY_VOLUMEUP"), mapped: true))
        for _ in 0..<30 { keyFeed.yield(KeyPress(event: InputEvent(source: .lirc, key: "KEY_VOLUMEUP", isRepeat: true), mapped: true)) }
        let pressed = await eventually { self.client.published(on: "castgw/r1/event").count == 2 }
        XCTAssertTrue(pressed)
        let armed = await eventually { self.clock.sleeperCount > sleepers }
        XCTAssertTrue(armed)
        await clock.advance(by: .seconds(1))
        let held = await eventually { self.client.published(on: "castgw/r1/event").count == 3 }
        XCTAssertTrue(held)
        XCTAssertEqual(client.published(on: "castgw/r1/event").map(\.text), [
            #"{"event_type":"KEY_RED","key":"KEY_RED","source":"lirc","mapped":false,"held":false,"repeats":0,"remote":"devinput"}"#,
            #"{"event_type":"KEY_VOLUMEUP","key":"KEY_VOLUMEUP","source":"lirc","mapped":true,"held":false,"repeats":0}"#,
            #"{"event_type":"KEY_VOLUMEUP","key":"KEY_VOLUMEUP","source":"lirc","mapped":true,"held":true,"repeats":30}"#,
        ])
        XCTAssertTrue(client.published(on: "castgw/r1/event").allSatisfy { !$0.retain })
    }

    func testTheSelectionNamesAnOptionThePlaySelectOffers() async {
        // Two presets share a name; ha-presets shows only the second, whose option is then plain "News".
        let presets: [HomeAssistantContext.Preset] = [.init(number: 1, name: "News", url: "http://tv/a"),
                                                      .init(number: 2, name: "News", url: "http://tv/b")]
        await start(context: HomeAssistantContext(presets: presets)) { $0.haPresets = [2] }
        await connect()
        let options = client.published(on: "homeassistant/select/castgw_r1/source/config").last
            .flatMap { try? JSONValue(parsing: $0.payload)["options"] }
        XCTAssertEqual(options, ["News"])
        var state = playing("Evening news")
        state.contentID = "http://tv/b"
        stateFeed.yield(state)
        let named = await eventually {
            self.client.published(on: "castgw/r1/state").last.flatMap { try? JSONValue(parsing: $0.payload)["selection"] } == "News"
        }
        XCTAssertTrue(named, "\(client.published(on: "castgw/r1/state").last?.text ?? "nothing published")")
    }

    func testThePlaySelectIsAnnouncedAgainWhenTheKiosksItemsChangeAndRemovedWithThem() async {
        await start()
        await connect()
        let topic = "homeassistant/select/castgw_r1/source/config"
        func announcements() -> [MQTTMessage] { client.published(on: topic) }
        func options() -> JSONValue? { announcements().last.flatMap { try? JSONValue(parsing: $0.payload)["options"] } }
        var state = playing("Welcome")
        stateFeed.yield(state)
        let stated = await eventually { !self.client.published(on: "castgw/r1/state").isEmpty }
        XCTAssertTrue(stated)
        XCTAssertTrue(announcements().isEmpty, "no presets, no kiosk: no Play select")
        state.kioskItems = KioskItems(names: ["Welcome", "Spa"], playing: 0)
        stateFeed.yield(state)
        let offered = await eventually { options() == ["Playlist 1: Welcome", "Playlist 2: Spa"] }
        XCTAssertTrue(offered, "\(String(describing: options()))")
        func selection() -> JSONValue? {
            client.published(on: "castgw/r1/state").last.flatMap { try? JSONValue(parsing: $0.payload)["selection"] }
        }
        // States are published at most once per interval: each waits for the clock.
        await clock.advance(by: FleetService.publishInterval)
        let first = await eventually { selection() == "Playlist 1: Welcome" }
        XCTAssertTrue(first, "\(String(describing: selection()))")
        // Another item playing changes the state, not the select's config.
        state.kioskItems?.playing = 1
        state.title = "Spa"
        stateFeed.yield(state)
        await clock.advance(by: FleetService.publishInterval)
        let second = await eventually { selection() == "Playlist 2: Spa" }
        XCTAssertTrue(second, "\(String(describing: selection()))")
        XCTAssertEqual(announcements().count, 1)
        // `playlist reload`: new items, announced again.
        state.kioskItems = KioskItems(names: ["Welcome", "Spa", "Bar"], playing: 1)
        stateFeed.yield(state)
        let reannounced = await eventually { options() == ["Playlist 1: Welcome", "Playlist 2: Spa", "Playlist 3: Bar"] }
        XCTAssertTrue(reannounced, "\(String(describing: options()))")
        XCTAssertEqual(announcements().count, 2)
        // The kiosk stops (a reload removed [kiosk]): the select goes, an empty retained config.
        state.kioskItems = nil
        stateFeed.yield(state)
        let removed = await eventually { announcements().last == MQTTMessage(topic: topic, payload: [], qos: 1, retain: true) }
        XCTAssertTrue(removed, "\(announcements().last?.text ?? "nothing")")
    }

    func testTheDeviceSelectOffersTheDevicesDiscoverySees() async {
        await start()
        await connect()
        func options() -> [JSONValue]? {
            client.published(on: "homeassistant/select/castgw_r1/device/config").last
                .flatMap { try? JSONValue(parsing: $0.payload)["options"]?.arrayValue }
        }
        var state = playing("A")
        state.deviceName = "Lobby TV"
        state.devices = [CastDevice(serviceName: "a", id: "1", name: "Bar TV", model: "Chromecast", capabilities: [.videoOut], busy: false,
                                    runningApp: nil, host: "10.0.0.2", port: 8009, txt: [:])]
        stateFeed.yield(state)
        let offered = await eventually { options() == ["Lobby TV", "Bar TV"] }
        XCTAssertTrue(offered, "\(String(describing: options()))")
        state.devices = []
        stateFeed.yield(state)
        let fewer = await eventually { options() == ["Lobby TV"] }
        XCTAssertTrue(fewer, "\(String(describing: options()))")
    }
}
