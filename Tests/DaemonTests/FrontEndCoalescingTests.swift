import CastProtocol
import Fleet
import Foundation
import GatewayCore
import JSON
import ReceiverSimulator
import ServiceLifecycle
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// Volume steps from the serial console and from MQTT go through the same
/// scheduler as the remote's keys: a burst becomes a few SET_VOLUMEs to the
/// final level, not one request per command, and every command is still
/// answered, in order.
final class FrontEndCoalescingTests: XCTestCase {
    private var directory: URL!

    override func setUp() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("coalescing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A daemon on the in-process receiver simulator, whose log has every payload as it arrived.
    private struct Running {
        let daemon: Daemon
        let group: ServiceGroup
        let task: Task<Bool, Never>
        let log: String

        /// The SET_VOLUME payloads, as text exactly as they arrived.
        var setVolumes: [String] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                guard let entry = try? JSONValue(parsing: String(line)), let data = entry["data"]?.stringValue,
                      (try? JSONValue(parsing: data))?["type"]?.stringValue == "SET_VOLUME" else { return nil }
                return data
            }
        }

        func stop() async {
            group.shutdown()
            _ = await task.value
        }
    }

    private func start(console: String) async throws -> Running {
        let config = directory.appendingPathComponent("gateway.conf").path
        try "[device]\nhost = tv.test\n[console]\ndevice = \(console)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("receiver.jsonl").path
        let running = try InProcessDaemon.start(config: config, simulatorLog: log)
        let (daemon, group, task) = (running.daemon, running.group, running.task)
        let connected = await eventually(timeout: .seconds(15)) { await daemon.gateway.state.link == .connected }
        XCTAssertTrue(connected)
        return Running(daemon: daemon, group: group, task: task, log: log)
    }

    /// The last request sets the level the steps add up to, and no stale one follows it.
    /// Steps of 3.125% are exact in binary, so the wire JSON is compared exactly.
    private func checkCoalesced(_ payloads: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let levels = try payloads.map { try JSONValue(parsing: $0)["volume"]?["level"]?.doubleValue ?? -1 }
        XCTAssertEqual(levels.first, 0, "the first request is the 'vol 0': \(payloads)", file: file, line: line)
        let steps = levels.dropFirst()
        XCTAssertGreaterThan(steps.count, 0, file: file, line: line)
        XCTAssertLessThan(steps.count, 20, "20 steps must not become 20 requests: \(payloads)", file: file, line: line)
        XCTAssertEqual(Array(steps), steps.sorted(), "levels only rise: no stale request arrives late", file: file, line: line)
        let last = try XCTUnwrap(payloads.last)
        let requestID = try XCTUnwrap(try JSONValue(parsing: last)["requestId"]?.doubleValue)
        XCTAssertEqual(last, #"{"type":"SET_VOLUME","requestId":\#(Int(requestID)),"volume":{"level":0.625}}"#, file: file, line: line)
    }

    func testTwentyRapidVolumeStepsFromTheConsoleBecomeAFewSetVolumes() async throws {
        let terminal = try PseudoTerminal()
        let link = directory.appendingPathComponent("serial0").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: terminal.slavePath)
        let running = try await start(console: link)
        let prompt = await terminal.waitFor("cast-gateway> ")
        XCTAssertTrue(prompt, terminal.text)
        let start = terminal.text.count
        terminal.type("vol 0\r")
        let zero = await terminal.waitFor("\r\nok\r\n", after: start)
        XCTAssertTrue(zero, terminal.text)
        XCTAssertEqual(running.setVolumes.count, 1)
        let mark = terminal.text.count
        // One write, as a paste or a script sends it.
        terminal.type(String(repeating: "vol +3.125\r", count: 20) + "status\r")
        let answered = await terminal.waitFor("  link: connected", after: mark)  // status: after every step
        XCTAssertTrue(answered, terminal.text)
        let text = String(terminal.text.dropFirst(mark))
        // A reply follows the echo, or the prompt drawn again after the previous reply.
        let replies = text.components(separatedBy: "\r\n").filter { $0 == "ok" || $0.hasSuffix("cast-gateway> ok") }
        XCTAssertEqual(replies.count, 20, "every step is answered 'ok': \(text.debugDescription)")
        XCTAssertFalse(text.contains("error:"), text)
        let payloads = running.setVolumes
        await running.stop()
        try checkCoalesced(payloads)
    }

    func testTwentyRapidVolumeStepsFromMQTTBecomeAFewSetVolumesAndAreAnsweredInOrder() async throws {
        let running = try await start(console: "none")
        let client = LoopbackMQTTClient()
        let settings = FleetSettings(broker: .init(host: "127.0.0.1", port: 1883, tls: false), room: "r1", haDiscovery: false)
        let gateway = running.daemon.gateway
        let fleet = FleetService(settings: settings, handler: FleetCommands(interpreter: running.daemon.interpreter()),
                                 states: { gateway.states() }, extras: FleetStatusExtras(version: "test", startedAt: .zero),
                                 makeClient: { _ in client })
        let service = Task { try await fleet.run() }
        let connecting = await eventually { client.connected }
        XCTAssertTrue(connecting)
        client.emit(.connected(sessionPresent: false))
        let up = await eventually { fleet.status.connected }
        XCTAssertTrue(up)

        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: #"{"id":"zero","command":"vol 0"}"#)))
        let zero = await eventually { running.setVolumes.count == 1 }
        XCTAssertTrue(zero)
        for index in 1...20 {
            client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: #"{"id":\#(index),"command":"vol +3.125"}"#)))
        }
        let answered = await eventually { client.replies.count == 21 }
        XCTAssertTrue(answered, "\(client.replies)")
        XCTAssertEqual(client.replies, [#"{"id":"zero","ok":true,"lines":["ok"]}"#] + (1...20).map { #"{"id":\#($0),"ok":true,"lines":["ok"]}"# },
                       "every step is answered, in order")
        let payloads = running.setVolumes
        service.cancel()
        _ = try? await service.value
        await running.stop()
        try checkCoalesced(payloads)
    }
}

/// The MQTT library seam, played by the test: it records what the service
/// publishes and delivers what the test emits.
private final class LoopbackMQTTClient: MQTTClient, Sendable {
    let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    private let published = Mutex<[MQTTMessage]>([])
    private let connects = Mutex(0)

    init() {
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
    }

    func connect() async throws { connects.withLock { $0 += 1 } }
    func subscribe(_ filters: [String], qos: Int) {}
    func publish(_ message: MQTTMessage) { published.withLock { $0.append(message) } }
    func disconnect(after final: MQTTMessage?) async {}

    func emit(_ event: MQTTEvent) { continuation.yield(event) }
    var connected: Bool { connects.withLock { $0 } > 0 }
    var replies: [String] { published.withLock { $0 }.filter { $0.topic == "castgw/r1/reply" }.map(\.text) }
}
