import CastClient
import CastProtocol
import ReceiverSimulator
import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// Issue 9 §6: a successful one-shot `cast` logged `warning cast: cannot read
/// the media status of ...: GET_STATUS #4 ... failed: connection closed by the
/// gateway`. Closing on purpose ends the client's own requests with a
/// cancellation, which is not a warning.
final class DeliberateCloseTests: XCTestCase {
    func testStopWithRequestsInFlightLogsNoWarningAndCancelsThem() async throws {
        let lines = Mutex<[(LogLevel, String)]>([])
        let previousLevel = Logger.level
        Logger.level = .debug
        Logger.setSink { level, text in lines.withLock { $0.append((level, text)) } }
        defer { Logger.setSink(nil); Logger.level = previousLevel }

        let harness = try ClientHarness()
        await harness.startConnected()
        // Replies now wait for the manual clock, so requests stay in flight.
        await harness.delayReplies(by: .seconds(10))
        let client = harness.client
        let loading = Task {
            try await client.load(LoadRequest(media: MediaInformation(
                contentID: "http://media.test/video.mp4", contentType: "video/mp4", duration: 100)))
        }
        let launchSent = await eventually { harness.sentTypes(on: CastNamespace.receiver).contains("LAUNCH") }
        XCTAssertTrue(launchSent)
        // The LAUNCH reply makes the client follow the app: CONNECT, then GET_STATUS (held back)...
        await harness.clock.advance(by: .seconds(10), step: .seconds(1))
        let following = await eventually {
            let media = harness.sentTypes(on: CastNamespace.media)
            return media.contains("GET_STATUS") && media.contains("LOAD")
        }
        XCTAssertTrue(following, "sent on the media channel: \(harness.sentTypes(on: CastNamespace.media))")
        // ...and LOAD is in flight too. Stopping now is deliberate.
        lines.withLock { $0.removeAll() }
        await client.stop()

        do {
            try await loading.value
            XCTFail("LOAD completed although the client was stopped first")
        } catch let error as CastError {
            XCTAssertEqual(error.code, .cancelled, "\(error)")
        }
        // The follow task ends on its own, after stop() returned: give it a moment to (not) log.
        let followEnded = await eventually {
            lines.withLock { $0 }.contains { $0.1.contains("GET_STATUS") }
        }
        XCTAssertTrue(followEnded, "the media status request never ended: \(lines.withLock { $0 })")
        let warnings = lines.withLock { $0 }.filter { $0.0 <= .warning }
        XCTAssertEqual(warnings.map(\.1), [], "a deliberate stop must not warn")
    }
}
