import CastProtocol
import Fleet
import Foundation
import GatewayModel
import JSON
import SystemSupport
import TestSupport
import XCTest

/// FleetService with the real libmosquitto client against a real
/// `mosquitto` per test (127.0.0.1 only), observed with mosquitto_sub/pub.
final class FleetBrokerTests: XCTestCase {
    /// One FleetService running in this process.
    final class RunningFleet: Sendable {
        let service: FleetService
        let handler: RecordingHandler
        let states: StateBroadcaster<GatewayState>
        let task: Task<Void, any Error>
        /// Every status the service reported, in order.
        let statuses = Recorded<FleetStatus>()

        init(settings: FleetSettings, clock: any TimeSource, handler: RecordingHandler = RecordingHandler(),
             initial: GatewayState = GatewayState()) {
            self.handler = handler
            let states = StateBroadcaster(initial)
            self.states = states
            let statuses = self.statuses
            let service = FleetService(settings: settings, handler: handler, states: { states.subscribe() },
                                       extras: FleetStatusExtras(version: "test", startedAt: clock.now, inputs: []),
                                       timeSource: clock, onStatusChange: { statuses.append($0) })
            self.service = service
            task = Task { try await service.run() }
        }

        func stop() async {
            task.cancel()
            _ = try? await task.value
        }
    }

    private var fleets: [RunningFleet] = []
    private var brokers: [MosquittoBroker] = []
    var directory: String!

    override func setUpWithError() throws {
        directory = try temporaryDirectory(self)
    }

    override func tearDown() async throws {
        for fleet in fleets { await fleet.stop() }
        fleets = []
        for broker in brokers { broker.stop() }
        brokers = []
        Logger.setSink(nil)
    }

    func startBroker(users: [String: String]? = nil, tls: MosquittoBroker.TLSFiles? = nil, name: String = "broker",
                             extra: [String] = []) throws -> MosquittoBroker {
        let path = directory + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let broker = try MosquittoBroker(directory: path, users: users, tls: tls, extra: extra)
        brokers.append(broker)
        try broker.start()
        return broker
    }

    func settings(_ broker: MosquittoBroker, room: String = "r1", groups: [String] = [],
                          _ configure: (inout FleetSettings) -> Void = { _ in }) -> FleetSettings {
        var settings = FleetSettings(broker: .init(host: "127.0.0.1", port: broker.port, tls: false), room: room, groups: groups)
        configure(&settings)
        return settings
    }

    func startFleet(_ settings: FleetSettings, clock: any TimeSource = SystemTimeSource(),
                            handler: RecordingHandler = RecordingHandler(), initial: GatewayState = GatewayState()) -> RunningFleet {
        let fleet = RunningFleet(settings: settings, clock: clock, handler: handler, initial: initial)
        fleets.append(fleet)
        return fleet
    }

    func waitConnected(_ fleet: RunningFleet, timeout: Duration = .seconds(10)) async -> Bool {
        await eventually(timeout: timeout) { fleet.service.status.connected }
    }

    func playing(_ title: String) -> GatewayState {
        var state = GatewayState()
        state.link = .connected
        state.deviceName = "TV"
        state.player = .playing
        state.title = title
        state.volume = 0.3
        return state
    }

    private func title(_ json: String?) -> String? {
        json.flatMap { try? JSONValue(parsing: $0) }?["title"]?.stringValue
    }

    // MARK: State and availability

    func testStateAvailabilityAndDiscoveryAreRetainedAndStateIsUpdated() async throws {
        let broker = try startBroker()
        let observer = BrokerObserver(broker: broker)
        let fleet = startFleet(settings(broker))
        let connected = await waitConnected(fleet)
        XCTAssertTrue(connected, broker.log)
        fleet.states.publish(playing("First"))
        XCTAssertEqual(title(try observer.waitForRetained("castgw/r1/state") { self.title($0) == "First" }), "First")
        fleet.states.publish(playing("Second"))
        let second = try observer.waitForRetained("castgw/r1/state") { self.title($0) == "Second" }
        XCTAssertEqual(title(second), "Second")
        XCTAssertEqual(try JSONValue(parsing: second ?? "")["volume"], 30)
        XCTAssertEqual(try observer.retained("castgw/r1/availability"), "online")
        let volume = try observer.retained("homeassistant/number/castgw_r1/volume/config")
        XCTAssertEqual(volume, HomeAssistantDiscovery.messages(settings: fleet.service.settings, version: "test")
                        .first { $0.topic == "homeassistant/number/castgw_r1/volume/config" }?.text)
    }

    func testAStoppedServiceLeavesOfflineRetained() async throws {
        let broker = try startBroker()
        let observer = BrokerObserver(broker: broker)
        let fleet = startFleet(settings(broker))
        let connected = await waitConnected(fleet)
        XCTAssertTrue(connected)
        XCTAssertEqual(try observer.waitForRetained("castgw/r1/availability") { $0 == "online" }, "online")
        await fleet.stop()
        XCTAssertEqual(try observer.waitForRetained("castgw/r1/availability") { $0 == "offline" }, "offline")
    }

    // MARK: Commands

    func testCommandsToTheRoomAllRoomsAndAGroupRunAndAreAnswered() async throws {
        let broker = try startBroker()
        let observer = BrokerObserver(broker: broker)
        let room1 = startFleet(settings(broker, room: "r1", groups: ["floor3"]))
        let room2 = startFleet(settings(broker, room: "r2", groups: ["floor4"]))
        let connected = await waitConnected(room1)
        let connected2 = await waitConnected(room2)
        XCTAssertTrue(connected && connected2)
        let replies = try observer.subscribe("castgw/+/reply")
        defer { replies.stop() }

        try observer.publish("castgw/r1/cmd", "pause")
        try observer.publish("castgw/all/cmd", #"{"id":"sweep-1","command":"vol 30"}"#)
        try observer.publish("castgw/group/floor3/cmd", #"{"id":42,"command":"stop"}"#)
        let ran = await eventually { room1.handler.received.count == 3 && room2.handler.received.count == 1 }
        XCTAssertTrue(ran, "r1: \(room1.handler.received), r2: \(room2.handler.received)")
        XCTAssertEqual(room1.handler.received, ["pause", "vol 30", "stop"])
        XCTAssertEqual(room2.handler.received, ["vol 30"])
        let answered = await eventually { replies.lines.count == 4 }
        XCTAssertTrue(answered, replies.output)
        XCTAssertEqual(replies.lines.filter { $0.hasPrefix("castgw/r1/reply ") }, [
            #"castgw/r1/reply {"id":null,"ok":true,"lines":["ok: pause"]}"#,
            #"castgw/r1/reply {"id":"sweep-1","ok":true,"lines":["ok: vol 30"]}"#,
            #"castgw/r1/reply {"id":42,"ok":true,"lines":["ok: stop"]}"#,
        ])
        XCTAssertEqual(replies.lines.filter { $0.hasPrefix("castgw/r2/reply ") }, [#"castgw/r2/reply {"id":"sweep-1","ok":true,"lines":["ok: vol 30"]}"#])
    }

    func testMalformedPayloadsAreRejectedWithAReplyAndNothingElseHappens() async throws {
        let broker = try startBroker()
        let observer = BrokerObserver(broker: broker)
        let fleet = startFleet(settings(broker))
        let connected = await waitConnected(fleet)
        XCTAssertTrue(connected)
        fleet.states.publish(playing("Unchanged"))
        XCTAssertNotNil(try observer.waitForRetained("castgw/r1/state") { self.title($0) == "Unchanged" })
        let replies = try observer.subscribe("castgw/r1/reply")
        defer { replies.stop() }

        try observer.publish("castgw/r1/cmd", [0x00, 0xFF, 0xFE, 0x80, 0x01])
        // Over 4 KiB but under the 64 KiB packet limit: answered (larger ones the broker drops, see below).
        try observer.publish("castgw/r1/cmd", [UInt8](repeating: UInt8(ascii: "a"), count: 5000))
        try observer.publish("castgw/r1/cmd", #"{"id":"j1","command":"pause""#)
        try observer.publish("castgw/r1/cmd", #"{"id":"j2"}"#)
        try observer.publish("castgw/r1/cmd", "creds secret-value")
        let answered = await eventually { replies.lines.count == 5 }
        XCTAssertTrue(answered, replies.output)
        let parsed = replies.lines.compactMap { try? JSONValue(parsing: String($0.dropFirst("castgw/r1/reply ".count))) }
        XCTAssertEqual(parsed.count, 5)
        XCTAssertEqual(parsed.map { $0["ok"] }, Array(repeating: .bool(false), count: 5))
        XCTAssertEqual(parsed.map { $0["id"] }, [.null, .null, .null, "j2", .null])
        XCTAssertFalse(replies.output.contains("secret-value"))
        XCTAssertEqual(fleet.handler.received, [])
        XCTAssertTrue(fleet.service.status.connected)
        XCTAssertEqual(title(try observer.retained("castgw/r1/state")), "Unchanged")
    }

    // MARK: Outages

    /// The broker restarts; a QoS 1 command sent while the gateway is still
    /// away (its reconnect waits on the manual clock) is delivered once it is back.
    func testBrokerRestartReconnectsRepublishesAndDeliversCommandsSentDuringTheOutage() async throws {
        let broker = try startBroker()
        let observer = BrokerObserver(broker: broker)
        let clock = ManualTimeSource()
        let fleet = startFleet(settings(broker), clock: clock)
        let connected = await waitConnected(fleet)
        XCTAssertTrue(connected, broker.log)
        fleet.states.publish(playing("Before"))
        await clock.advance(by: .milliseconds(300), step: .milliseconds(50))  // past the coalescing interval
        XCTAssertNotNil(try observer.waitForRetained("castgw/r1/state") { self.title($0) == "Before" })

        broker.stop()
        let down = await eventually { !fleet.service.status.connected }
        XCTAssertTrue(down)
        XCTAssertNotNil(fleet.service.status.problem, "\(fleet.service.status)")
        fleet.states.publish(playing("During"))  // published once back

        try broker.start()
        try observer.publish("castgw/r1/cmd", #"{"id":"late","command":"pause"}"#)
        XCTAssertEqual(fleet.handler.received, [], "the gateway is still away")
        XCTAssertFalse(fleet.service.status.connected)

        await clock.advance(by: .seconds(2))  // the first backoff delay is at most 1.5 s
        let back = await waitConnected(fleet)
        XCTAssertTrue(back, "\(fleet.service.status) \(broker.log)")
        let delivered = await eventually(timeout: .seconds(10)) { fleet.handler.received == ["pause"] }
        XCTAssertTrue(delivered, "the command queued for the persistent session arrives: \(fleet.handler.received)\n\(broker.log)")
        await clock.advance(by: .milliseconds(300), step: .milliseconds(50))
        XCTAssertEqual(title(try observer.waitForRetained("castgw/r1/state") { self.title($0) == "During" }), "During")
        XCTAssertEqual(try observer.retained("castgw/r1/availability"), "online")
    }

    /// `kill -9` of a gateway process: the broker publishes its Last Will.
    func testKilledGatewayBecomesOfflineThroughItsLastWill() async throws {
        let broker = try startBroker()
        let observer = BrokerObserver(broker: broker)
        let bench = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("cast-gateway-bench").path
        let node = try ChildProcess(bench, ["fleet-node", "--broker", broker.url, "--room", "r9"], outputPath: directory + "/node.out")
        defer { node.stop(signal: SIGKILL) }
        XCTAssertEqual(try observer.waitForRetained("castgw/r9/availability") { $0 == "online" }, "online", node.output)
        kill(node.pid, SIGKILL)
        XCTAssertNotNil(node.waitForExit(timeout: 10))
        XCTAssertEqual(try observer.waitForRetained("castgw/r9/availability") { $0 == "offline" }, "offline", broker.log)
    }

    // MARK: Clear problems

    func testAnUnresolvableBrokerIsAClearProblem() async throws {
        let fleet = startFleet(FleetSettings(broker: .init(host: "no-such-broker.invalid", port: 1883, tls: false), room: "r1"))
        let problem = await eventually { fleet.service.status.problem != nil }
        XCTAssertTrue(problem)
        let text = fleet.service.status.problem ?? ""
        XCTAssertTrue(text.contains("cannot connect to the MQTT broker mqtt://no-such-broker.invalid:1883"), text)
    }

    func testAWrongPasswordIsAClearProblemLoggedOnceAndTheRightOneConnects() async throws {
        let broker = try startBroker(users: ["r1": "right-password"])
        let logged = Recorded<String>()
        Logger.setSink { level, line in if level <= .warning { logged.append(line) } }
        let wrong = directory + "/wrong"
        _ = FileManager.default.createFile(atPath: wrong, contents: Data("wrong-password\n".utf8), attributes: [.posixPermissions: 0o600])
        let clock = ManualTimeSource()
        let fleet = startFleet(settings(broker) { $0.username = "r1"; $0.passwordFile = wrong }, clock: clock)
        let refused = await eventually { fleet.service.status.problem?.contains("refused") == true }
        XCTAssertTrue(refused, "\(fleet.service.status)")
        let problem = fleet.service.status.problem ?? ""
        XCTAssertTrue(problem.contains("not authorised") && problem.contains("check username and password-file"), problem)
        await clock.advance(by: .seconds(2))
        let attempts = await eventually { broker.log.components(separatedBy: "disconnected, not authorised").count - 1 >= 2 }
        XCTAssertTrue(attempts, broker.log)
        XCTAssertEqual(logged.all.filter { $0.contains("refused") }.count, 1, "\(logged.all)")
        XCTAssertFalse(logged.all.contains { $0.contains("wrong-password") })
        await fleet.stop()

        let right = directory + "/right"
        _ = FileManager.default.createFile(atPath: right, contents: Data("right-password\n".utf8), attributes: [.posixPermissions: 0o600])
        let good = startFleet(settings(broker) { $0.username = "r1"; $0.passwordFile = right })
        let connected = await waitConnected(good)
        XCTAssertTrue(connected, "\(good.service.status)")
    }

    /// ca.pem/ca.key and other.pem (CAs), server.pem/server.key for 127.0.0.1 signed by ca, in `directory`/tls.
    func makeCertificates() throws -> String {
        let tlsDirectory = directory + "/tls"
        try FileManager.default.createDirectory(atPath: tlsDirectory, withIntermediateDirectories: true)
        let script = """
            set -e; cd \(tlsDirectory)
            for ca in ca other; do
              openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $ca.key -out $ca.pem -days 1 -subj /CN=$ca
            done
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr -subj /CN=127.0.0.1
            printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 1 -extfile san.ext
            """
        let openssl = try ChildProcess("sh", ["-c", script], outputPath: directory + "/openssl.out")
        XCTAssertEqual(openssl.waitForExit(timeout: 30), 0, openssl.output)
        return tlsDirectory
    }

    func testTLSConnectsWithTheCAAndAnUnreadableOrWrongCAIsAClearProblem() async throws {
        let tlsDirectory = try makeCertificates()
        let broker = try startBroker(tls: .init(ca: tlsDirectory + "/ca.pem", certificate: tlsDirectory + "/server.pem",
                                                key: tlsDirectory + "/server.key"))
        func tlsSettings(ca: String) -> FleetSettings {
            settings(broker) { $0.broker.tls = true; $0.caFile = ca }
        }

        let good = startFleet(tlsSettings(ca: tlsDirectory + "/ca.pem"))
        let connected = await waitConnected(good)
        XCTAssertTrue(connected, "\(good.service.status) \(broker.log)")
        await good.stop()

        let missing = startFleet(tlsSettings(ca: tlsDirectory + "/missing.pem"))
        let unreadable = await eventually { missing.service.status.problem != nil }
        XCTAssertTrue(unreadable)
        XCTAssertTrue(missing.service.status.problem?.contains("CA file \(tlsDirectory)/missing.pem cannot be read") == true,
                      "\(missing.service.status)")
        await missing.stop()

        let notPEM = startFleet(tlsSettings(ca: tlsDirectory + "/san.ext"))
        let garbage = await eventually { notPEM.service.status.problem != nil }
        XCTAssertTrue(garbage)
        XCTAssertTrue(notPEM.service.status.problem?.contains("is not a PEM file") == true, "\(notPEM.service.status)")
        await notPEM.stop()

        let wrongCA = startFleet(tlsSettings(ca: tlsDirectory + "/other.pem"))
        let rejected = await eventually { wrongCA.service.status.problem != nil }
        XCTAssertTrue(rejected)
        XCTAssertTrue(wrongCA.service.status.problem?.contains("TLS") == true, "\(wrongCA.service.status)")
        XCTAssertFalse(wrongCA.service.status.connected)
    }
}
