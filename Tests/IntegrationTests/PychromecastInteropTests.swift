import CastProtocol
import Foundation
import JSON
import XCTest

/// A real third-party sender, pychromecast (pinned, from PyPI), against the
/// simulator: validates that the simulator speaks Cast v2 as senders expect.
final class PychromecastInteropTests: XCTestCase {
    func testPychromecastDrivesTheSimulatorThroughAFullSession() throws {
        let python = try Pychromecast.python()
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("pychromecast/drive_simulator.py").path
        let driver = try ManagedProcess(python, [script, String(simulator.port)])
        let status = driver.waitForExit(timeout: 90)
        XCTAssertEqual(status, 0, driver.allOutput)

        var steps: [String: JSONValue] = [:]
        for line in driver.stdout {
            if let json = try? JSONValue(parsing: line), let step = json["step"]?.stringValue { steps[step] = json }
        }
        XCTAssertEqual(steps["connected"]?["app_id"], .string(CastAppID.backdrop))
        XCTAssertEqual(steps["connected"]?["volume"], 0.5)
        XCTAssertEqual(steps["launched"]?["app_id"], .string(CastAppID.defaultMediaReceiver))
        XCTAssertEqual(steps["playing"]?["player_state"], "PLAYING")
        XCTAssertEqual(steps["playing"]?["title"], "Big Buck Bunny")
        XCTAssertEqual(steps["playing"]?["content_id"], "http://media.test/bbb.mp4")
        XCTAssertEqual(steps["playing"]?["duration"], 600, "BUFFERED media loaded without a duration gets the assumed one")
        XCTAssertEqual(steps["paused"]?["player_state"], "PAUSED")
        XCTAssertEqual(steps["resumed"]?["player_state"], "PLAYING")
        XCTAssertEqual(steps["seeked"]?["current_time"]?.doubleValue ?? 0, 100, accuracy: 1)
        XCTAssertEqual(steps["volume"]?["volume"]?.doubleValue ?? 0, 0.3, accuracy: 0.001)
        XCTAssertEqual(steps["quit"]?["app_id"], .string(CastAppID.backdrop))
        XCTAssertNotNil(steps["done"], "pychromecast did not finish: \(driver.allOutput)\nthe simulator said: \(simulator.process.allOutput)")

        let types = simulator.received().compactMap { (try? JSONValue(parsing: $0.text))?["type"]?.stringValue }
        for expected in ["CONNECT", "GET_STATUS", "LAUNCH", "LOAD", "PAUSE", "PLAY", "SEEK", "SET_VOLUME", "STOP"] {
            XCTAssertTrue(types.contains(expected), "the simulator never received \(expected): \(types)")
        }
    }

    /// Issue 9 §6: `play_media(url, "video/mp4", stream_type="BUFFERED")`
    /// carries no duration; the simulator assumes `--default-duration` so that
    /// `seek(12)` works as on a real receiver. pychromecast's default stream
    /// type, LIVE, stays unseekable.
    func testPychromecastSeeksBufferedMediaLoadedWithoutDuration() throws {
        let python = try Pychromecast.python()
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory, extraArguments: ["--default-duration", "50"])
        defer { simulator.stop() }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("pychromecast/seek_without_duration.py").path
        let driver = try ManagedProcess(python, [script, String(simulator.port)])
        let status = driver.waitForExit(timeout: 90)
        XCTAssertEqual(status, 0, driver.allOutput)

        var steps: [String: JSONValue] = [:]
        for line in driver.stdout {
            if let json = try? JSONValue(parsing: line), let step = json["step"]?.stringValue { steps[step] = json }
        }
        XCTAssertEqual(steps["buffered"]?["duration"], 50)
        XCTAssertEqual(steps["buffered"]?["supports_seek"], true)
        XCTAssertEqual(steps["seeked"]?["current_time"]?.doubleValue ?? 0, 12, accuracy: 1)
        XCTAssertEqual(steps["live"]?["stream_type"], "LIVE")
        // (pychromecast keeps the previous item's duration when a status has none, so it is not checked here.)
        XCTAssertEqual(steps["live"]?["supports_seek"], false)
        XCTAssertNotNil(steps["done"], "pychromecast did not finish: \(driver.allOutput)\nthe simulator said: \(simulator.process.allOutput)")
    }
}
