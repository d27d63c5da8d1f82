import MediaServer
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
        XCTAssertEqual(try curl("http://127.0.0.1:\(port)/0/video.vtt").status, 200)

        feed.finish()  // no more addresses: keeps serving
        XCTAssertEqual(try curl("http://127.0.0.1:\(port)/0/video.vtt").status, 200)

        running.cancel()
        try await running.value
        XCTAssertNil(fixture.server.endpoint)
        XCTAssertEqual(try runTool("curl", ["-sS", "--max-time", "5", "http://127.0.0.1:\(port)/0/video.vtt"]).status, 7)
    }
}
