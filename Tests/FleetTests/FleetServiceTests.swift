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

    private func start(handler: RecordingHandler = RecordingHandler(), _ configure: (inout FleetSettings) -> Void = { _ in }) async {
        clock = ManualTimeSource()
        client = FakeMQTTClient()
        self.handler = handler
        var settings = FleetSettings(broker: .init(host: "127.0.0.1", port: 1883, tls: false), room: "r1", groups: ["floor3"])
        configure(&settings)
        let (states, feed) = AsyncStream.makeStream(of: GatewayState.self)
        stateFeed = feed
        let client = self.client!
        service = FleetService(settings: settings, handler: handler, states: { states },
                               extras: FleetStatusExtras(version: "1.0", startedAt: clock.now, inputs: ["lirc"]),
                               timeSource: clock, onStatusChange: { [statuses] status in statuses.append(status) },
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

    func testOnConnectSubscribesAndAnnouncesOnlineAndDiscovery() async {
        await start()
        await connect()
        let announced = await eventually { !self.client.published(on: "castgw/r1/availability").isEmpty }
        XCTAssertTrue(announced)
        XCTAssertEqual(client.subscriptions.first, ["castgw/r1/cmd", "castgw/all/cmd", "castgw/group/floor3/cmd", "homeassistant/status"])
        let online = client.published(on: "castgw/r1/availability")
        XCTAssertEqual(online, [MQTTMessage(topic: "castgw/r1/availability", text: "online", qos: 1, retain: true)])
        XCTAssertEqual(client.published.filter { $0.topic.hasPrefix("homeassistant/") }.count, 18)
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

    func testHomeAssistantRestartGetsTheDiscoveryAgain() async {
        await start()
        await connect()
        let first = await eventually { self.client.published.filter { $0.topic.hasPrefix("homeassistant/") }.count == 18 }
        XCTAssertTrue(first)
        client.emit(.message(MQTTMessage(topic: "homeassistant/status", text: "online", qos: 1)))
        let again = await eventually { self.client.published.filter { $0.topic.hasPrefix("homeassistant/") }.count == 36 }
        XCTAssertTrue(again)
    }
}
