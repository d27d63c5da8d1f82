import Foundation
import MediaServer
import Synchronization
import SystemSupport
import TestSupport
import XCTest

final class MediaServerServiceTests: XCTestCase {
    func testServiceListensTowardTheReceiverAndStopsWhenCancelled() async throws {
        let fixture = try await MediaFixture(test: self)
        await fixture.server.stop()
        let (addresses, feed) = AsyncStream<String>.makeStream()
        let service = MediaServerService(server: fixture.server, receiverAddresses: addresses)
        XCTAssertEqual(service.name, "media")
        let running = Task { try await service.run() }
        defer { running.cancel() }
        XCTAssertNil(fixture.server.endpoint, "no receiver known yet: not listening")

        feed.yield("not-an-address")  // logged, not fatal
        feed.yield("127.0.0.1")
        let listening = await eventually { fixture.server.endpoint != nil }
        XCTAssertTrue(listening)
        let port = try XCTUnwrap(fixture.server.endpoint?.port)
        XCTAssertEqual(try curl("http://127.0.0.1:\(port)\(fixture.server.urlPrefix)/0/video.vtt").status, 200)

        feed.finish()  // no more addresses: keeps serving
        XCTAssertEqual(try curl("http://127.0.0.1:\(port)\(fixture.server.urlPrefix)/0/video.vtt").status, 200)

        running.cancel()
        try await running.value
        XCTAssertNil(fixture.server.endpoint)
        XCTAssertEqual(try runTool("curl", ["-sS", "--max-time", "5", "http://127.0.0.1:\(port)\(fixture.server.urlPrefix)/0/video.vtt"]).status, 7)
    }

    func testATakenPortIsRetriedWithBackoffAndReportedOnceUntilItFrees() async throws {
        // Another program holds the port (no SO_REUSEPORT, so it cannot be shared).
        let blocker = try HeldPort()
        var blockerOpen = true
        defer { if blockerOpen { close(blocker.fd) } }
        let fixture = try await MediaFixture(test: self)
        await fixture.server.stop()
        let server = try MediaServer(settings: MediaServerSettings(roots: [fixture.root.path], port: blocker.port))
        let clock = ManualTimeSource()
        let reports = Mutex<[String?]>([])
        let (addresses, feed) = AsyncStream<String>.makeStream()
        let service = MediaServerService(server: server, receiverAddresses: addresses, clock: clock) { problem in
            reports.withLock { $0.append(problem) }
        }
        let running = Task { try await service.run() }
        defer { running.cancel() }

        feed.yield("127.0.0.1")
        let reported = await eventually { !reports.withLock { $0 }.isEmpty }
        XCTAssertTrue(reported)
        let problem = try XCTUnwrap(reports.withLock { $0 }.first ?? nil)
        XCTAssertTrue(problem.contains("port \(blocker.port) on 127.0.0.1 is in use by another program"), problem)
        XCTAssertTrue(problem.contains("[media] port"), "says what to do: \(problem)")
        XCTAssertNil(server.endpoint)

        // Retries on the clock (backoff: about 1 s, then 2 s, ...) fail the same way: no new report.
        for _ in 0..<3 {
            let waiting = await eventually { clock.sleeperCount == 1 }
            XCTAssertTrue(waiting, "no retry scheduled")
            await clock.advance(by: .seconds(40), step: .seconds(1))
        }
        let waiting = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(waiting, "no retry scheduled")
        XCTAssertEqual(reports.withLock { $0 }.count, 1, "one outage, one report: \(reports.withLock { $0 })")
        XCTAssertNil(server.endpoint)

        // The port frees up: the next retry serves, and the problem is cleared.
        close(blocker.fd)
        blockerOpen = false
        await clock.advance(by: .seconds(40), step: .seconds(1))
        let serving = await eventually { server.endpoint != nil }
        XCTAssertTrue(serving)
        XCTAssertEqual(server.endpoint?.port, blocker.port)
        let cleared = await eventually { reports.withLock { $0 }.last == .some(nil) }
        XCTAssertTrue(cleared, "\(reports.withLock { $0 })")
        XCTAssertEqual(reports.withLock { $0 }.count, 2)
        XCTAssertEqual(try curl("http://127.0.0.1:\(blocker.port)\(server.urlPrefix)/0/video.vtt").status, 200)

        running.cancel()
        try await running.value
        XCTAssertNil(server.endpoint)
    }
}
