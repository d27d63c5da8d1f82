#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import GatewayModel
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import RemoteInput

final class LircSourceTests: XCTestCase {
    /// liblirc_client's lirc_get_local_socket left one socket open per failed
    /// connect: a box without lircd ran out of descriptors within a day.
    func testFiftyFailedReconnectsLeaveNoDescriptorBehind() async {
        let clock = ManualTimeSource()
        let (_, sink) = InputEvent.makeStream()
        let attempts = Mutex(0)
        let source = LircSource(socketPath: "/nonexistent-\(getpid())/lircd", sink: sink)
            .service(timeSource: clock) { problem in if problem != nil { attempts.withLock { $0 += 1 } } }
        let before = openFileDescriptorCount()
        let running = RunningService(source)
        for attempt in 1...50 {
            let failed = await eventually { attempts.withLock { $0 } == attempt && clock.sleeperCount == 1 }
            XCTAssertTrue(failed, "attempt \(attempt)")
            await clock.advance(by: .seconds(40), step: .seconds(40))  // past the 30 s cap (and its jitter)
        }
        XCTAssertEqual(openFileDescriptorCount(), before, "a failed connect must close its socket")
        await running.stop()
    }

    func testLinesFromARealSocketBecomeEventsAndGarbageIsSkipped() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lircd-\(UUID().uuidString)").path
        let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server); unlink(path) }
        XCTAssertEqual(UnixSocket.withAddress(path) { bind(server, $0, $1) }, 0)
        XCTAssertEqual(listen(server, 1), 0)
        let (events, sink) = InputEvent.makeStream()
        let running = RunningService(LircSource(socketPath: path, sink: sink).service())
        defer { running.cancel() }
        let client = accept(server, nil, nil)  // blocks until the source connects
        XCTAssertGreaterThanOrEqual(client, 0)
        defer { close(client) }
        let lines = "BEGIN\nnot a key line\n00000000000000a4 00 KEY_PLAYPAUSE devinput-64\r\n"
            + String(repeating: "x", count: 3000) + "\n0000000000000073 01 KEY_VOLUMEUP devinput-64\n"
        _ = lines.withCString { write(client, $0, strlen($0)) }
        var received: [InputEvent] = []
        for await event in events {
            received.append(event)
            if received.count == 2 { break }
        }
        XCTAssertEqual(received.map(\.key), ["KEY_PLAYPAUSE", "KEY_VOLUMEUP"])
        XCTAssertEqual(received.map(\.isRepeat), [false, true])
        XCTAssertEqual(received.map(\.remote), ["devinput-64", "devinput-64"])
    }
}
