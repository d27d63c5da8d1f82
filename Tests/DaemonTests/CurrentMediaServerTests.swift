import Foundation
import GatewayModel
import MediaServer
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// A kiosk asks for its local items' URLs right after connecting, while the
/// media server starts listening only once the receiver's address is known:
/// on a busy box the question came first, the URLs were missing, and a kiosk
/// restarted after a power cut took its own item on the TV for a guest's
/// (KioskIntegrationTests' kill -9 test, once under load).
final class CurrentMediaServerTests: XCTestCase {
    private func server() throws -> (MediaServer, file: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cast-gateway-locator-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("lobby.mp4")
        try Data("not really a video".utf8).write(to: file)
        return (try MediaServer(settings: MediaServerSettings(roots: [root.path], port: 0)), file.path)
    }

    /// A server that does not listen yet, and a question for its file, waiting.
    private func askBeforeListening() async throws -> (MediaServer, ManualTimeSource, Task<LocatedMedia, any Error>) {
        let (server, file) = try server()
        let clock = ManualTimeSource()
        let locator = CurrentMediaServer(timeSource: clock)
        locator.set(server)
        let asked = Task { try await locator.media(forLocalPath: file) }
        let waiting = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(waiting, "the question waits for the listen")
        return (server, clock, asked)
    }

    func testAURLAskedForBeforeTheServerListensComesOnceItListens() async throws {
        let (server, _, asked) = try await askBeforeListening()
        let address = try await server.listen(on: "127.0.0.1")
        defer { Task { await server.stop() } }
        let media = try await asked.value
        XCTAssertEqual(media.url, "http://127.0.0.1:\(address.port)\(server.urlPrefix)/0/lobby.mp4")
    }

    func testAServerThatNeverListensAnswersNotListeningAfterTheWait() async throws {
        let (_, clock, asked) = try await askBeforeListening()
        await clock.advance(by: CurrentMediaServer.listenWait)
        do {
            _ = try await asked.value
            XCTFail("no URL without a listening server")
        } catch let error as MediaServerError {
            XCTAssertEqual(error.code, .notListening, "\(error)")
        }
    }

    func testAFileTheServerWouldNotServeIsRefusedWithoutWaiting() async throws {
        let (server, _) = try server()
        let clock = ManualTimeSource()
        let locator = CurrentMediaServer(timeSource: clock)
        locator.set(server)
        let outcome = Mutex<String?>(nil)
        let asked = Task {
            do {
                _ = try await locator.media(forLocalPath: "/etc/passwd")
                outcome.withLock { $0 = "served" }
            } catch let error as MediaServerError {
                outcome.withLock { $0 = error.code.rawValue }
            }
        }
        defer { asked.cancel() }
        let answered = await eventually { outcome.withLock { $0 } != nil }
        XCTAssertTrue(answered, "answered without the clock moving")
        XCTAssertEqual(outcome.withLock { $0 }, MediaServerError.Code.notServable.rawValue)
        XCTAssertEqual(clock.sleeperCount, 0)
    }
}
