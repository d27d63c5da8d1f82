import CastProtocol
import Fleet
import GatewayModel
import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// Each payload's command is read once, when it arrives; commands are taken
/// in one at a time, and a reply that waits (a coalesced volume step) does
/// not hold the next command back, but replies still go out in order.
final class FleetCommandPipelineTests: XCTestCase {
    /// Counts `prepare` calls; a command named `slow` is answered only at `release()`.
    private final class GatedHandler: FleetCommandHandler {
        let prepared = Mutex<[String]>([])
        let started = Mutex<[String]>([])
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)

        func prepare(_ line: String) -> FleetCommand {
            prepared.withLock { $0.append(line) }
            return FleetCommand(kind: line == "status" ? .query : .needsReceiver) {
                self.started.withLock { $0.append(line) }
                return {
                    if line == "slow" { await withCheckedContinuation { continuation in self.gate.withLock { $0 = continuation } } }
                    return FleetReply(ok: true, lines: ["ok: \(line)"])
                }
            }
        }

        var waiting: Bool { gate.withLock { $0 != nil } }
        func release() {
            let continuation = gate.withLock { gate in
                defer { gate = nil }
                return gate
            }
            continuation?.resume()
        }
    }

    /// The service on the fake client, running and connected to the broker; the test cancels the task.
    private func connectedService(_ handler: GatedHandler) async
        -> (client: FakeMQTTClient, states: AsyncStream<GatewayState>.Continuation, task: Task<Void, any Error>) {
        let clock = ManualTimeSource()
        let client = FakeMQTTClient()
        let settings = FleetSettings(broker: .init(host: "127.0.0.1", port: 1883, tls: false), room: "r1", haDiscovery: false)
        let (states, feed) = AsyncStream.makeStream(of: GatewayState.self)
        let service = FleetService(settings: settings, handler: handler, states: { states },
                                   extras: FleetStatusExtras(version: "1.0", startedAt: clock.now), timeSource: clock,
                                   makeClient: { _ in client })
        let task = Task { try await service.run() }
        let connecting = await eventually { client.connectCalls == 1 }
        XCTAssertTrue(connecting)
        client.emit(.connected(sessionPresent: false))
        let up = await eventually { service.status.connected }
        XCTAssertTrue(up)
        return (client, feed, task)
    }

    func testACommandIsReadOnceAndAWaitingReplyDoesNotHoldTheNextCommandBack() async {
        let handler = GatedHandler()
        let (client, feed, task) = await connectedService(handler)
        defer { task.cancel() }

        // The receiver is away: the commands are held (read once, not again when they run).
        var away = GatewayState()
        away.link = .connecting
        feed.yield(away)
        let seen = await eventually { client.published(on: "castgw/r1/state").count == 1 }
        XCTAssertTrue(seen)
        for (id, command) in [("a", "slow"), ("b", "fast"), ("c", "status")] {
            client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: #"{"id":"\#(id)","command":"\#(command)"}"#)))
        }
        let query = await eventually { client.published(on: "castgw/r1/reply").count == 1 }
        XCTAssertTrue(query, "the query runs at once")
        XCTAssertEqual(handler.started.withLock { $0 }, ["status"], "the others wait for the receiver")

        var back = GatewayState()
        back.link = .connected
        feed.yield(back)
        let bothStarted = await eventually { handler.started.withLock { $0 } == ["status", "slow", "fast"] && handler.waiting }
        XCTAssertTrue(bothStarted, "'fast' was not taken in while 'slow' waited for its answer: \(handler.started.withLock { $0 })")
        XCTAssertEqual(client.published(on: "castgw/r1/reply").count, 1, "no reply overtakes the one that waits")
        handler.release()
        let answered = await eventually { client.published(on: "castgw/r1/reply").count == 3 }
        XCTAssertTrue(answered)
        XCTAssertEqual(client.published(on: "castgw/r1/reply").map(\.text), [
            #"{"id":"c","ok":true,"lines":["ok: status"]}"#,
            #"{"id":"a","ok":true,"lines":["ok: slow"]}"#,
            #"{"id":"b","ok":true,"lines":["ok: fast"]}"#,
        ])
        XCTAssertEqual(handler.prepared.withLock { $0 }, ["slow", "fast", "status"], "each command is read once, when it arrives")
        task.cancel()
        _ = try? await task.value
    }

    /// The tasks that await replies publish them, but never after the goodbye:
    /// a reply that comes once the DISCONNECT is out is dropped.
    func testAReplyThatComesAfterTheGoodbyeIsNotPublished() async {
        let handler = GatedHandler()
        let (client, feed, task) = await connectedService(handler)
        defer { task.cancel() }
        var linked = GatewayState()
        linked.link = .connected
        feed.yield(linked)
        let shown = await eventually { client.published(on: "castgw/r1/state").count == 1 }
        XCTAssertTrue(shown)
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: #"{"id":"a","command":"slow"}"#)))
        client.emit(.message(MQTTMessage(topic: "castgw/r1/cmd", text: #"{"id":"q","command":"status"}"#)))
        let waiting = await eventually { handler.waiting && client.published(on: "castgw/r1/reply").count == 1 }
        XCTAssertTrue(waiting, "'slow' waits for its answer, the query is answered")
        task.cancel()
        let goodbye = await eventually { client.goodbye.count == 1 }
        XCTAssertTrue(goodbye)
        handler.release()
        _ = try? await task.value
        XCTAssertEqual(client.published(on: "castgw/r1/reply").map(\.text), [#"{"id":"q","ok":true,"lines":["ok: status"]}"#],
                       "the reply to 'slow' came after the goodbye")
    }
}
