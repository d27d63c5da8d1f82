import Foundation
import GatewayCore
import GatewayModel
import JSON
import SystemSupport
import XCTest
@testable import Daemon

/// commit-slot's report of the last A/B update (deploy/rauc/commit-slot):
/// read at start and at every reload, shown in `status`, in the MQTT state
/// and as a problem while an update failed.
final class UpdateReportTests: XCTestCase {
    func testTheLinesCommitSlotWritesAreRead() throws {
        let failed = try UpdateReport(parsing: "state=failed\nversion=2.1\nrunning=2.0\ntime=2026-12-02T08:00:00Z\n")
        XCTAssertEqual(failed, UpdateReport(outcome: .failed, version: "2.1", running: "2.0", time: "2026-12-02T08:00:00Z"))
        XCTAssertEqual(failed.summary, "the update to 2.1 failed; back on 2.0")
        XCTAssertEqual(failed.problem, "the update to 2.1 failed; back on 2.0")
        let updated = try UpdateReport(parsing: "state=updated\nversion=2.1\nrunning=2.1\nprevious=2.0\nsomething-new=1\n")
        XCTAssertEqual(updated.summary, "updated to 2.1 (was 2.0)")
        XCTAssertNil(updated.problem, "an update that went well is no problem")
        let unhealthy = try UpdateReport(parsing: "state=unhealthy\nversion=2.1\nrunning=2.1\n")
        XCTAssertEqual(unhealthy.problem, "2.1 is not healthy; the box restarts to try it again, then goes back")
        XCTAssertEqual(failed.json.serialized,
                       #"{"state":"failed","version":"2.1","running":"2.0","previous":null,"time":"2026-12-02T08:00:00Z"}"#)
    }

    func testAReportThatIsNotOneSaysWhy() {
        let cases: [(String, String)] = [
            ("version=2.1\nrunning=2.0\n", "it has no state= line"),
            ("state=rolled-back\nversion=2.1\nrunning=2.0\n", "state=rolled-back is not updated, failed or unhealthy"),
            ("state=failed\nrunning=2.0\n", "it has no version= line"),
            ("state=failed\nversion=2.1\n", "it has no running= line"),
            ("state=failed\nversion=2.1 \u{1B}[2J\nrunning=2.0\n", "version= is not a version (printable ASCII, at most 64 characters)"),
            ("state=failed\nversion=\(String(repeating: "9", count: 65))\nrunning=2.0\n", "version= is not a version (printable ASCII, at most 64 characters)"),
            ("state=failed\nversion=2.1\nrunning=2.0\nprevious=\n", "it has no previous= line"),
            ("state=failed\n\u{1B}]0;x\u{7}\n", "the line '?]0;x?' is not key=value"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try UpdateReport(parsing: text), text) { error in
                XCTAssertEqual("\(error)", reason, text)
            }
        }
    }

    func testTheDaemonShowsTheReportAtStartAndAfterAReload() async throws {
        let directory = NSTemporaryDirectory() + "cast-gateway-update-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/gateway.conf", report = directory + "/report"
        try "[device]\nhost = 127.0.0.1:1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = Daemon(path: config, settings: try DaemonSettings.load(path: config), connector: { _, _ in
            throw GatewayError(.unavailable, "no receiver in this test")
        }, version: "test", updateReportPath: report)

        // No report: nothing shown.
        await daemon.readUpdateReport()
        var state = await daemon.gateway.state
        XCTAssertNil(state.update)

        try "state=failed\nversion=2.1\nrunning=2.0\n".write(toFile: report, atomically: true, encoding: .utf8)
        await daemon.readUpdateReport()
        state = await daemon.gateway.state
        XCTAssertEqual(state.update, UpdateReport(outcome: .failed, version: "2.1", running: "2.0"))
        let status = await daemon.interpreter().run("status")
        XCTAssertTrue(status.contains("  update: the update to 2.1 failed; back on 2.0"), "\(status)")

        // commit-slot rewrites it and reloads the gateway.
        try "state=updated\nversion=2.2\nrunning=2.2\nprevious=2.0\n".write(toFile: report, atomically: true, encoding: .utf8)
        let error = await daemon.reload()
        XCTAssertNil(error)
        state = await daemon.gateway.state
        XCTAssertEqual(state.update?.summary, "updated to 2.2 (was 2.0)")

        // A broken file shows nothing (and is logged), the config reload still applies.
        try "state=who-knows\n".write(toFile: report, atomically: true, encoding: .utf8)
        await daemon.readUpdateReport()
        state = await daemon.gateway.state
        XCTAssertNil(state.update)
        // A directory where the file should be is no report either.
        try FileManager.default.removeItem(atPath: report)
        try FileManager.default.createDirectory(atPath: report, withIntermediateDirectories: false)
        try "state=failed\nversion=2.1\nrunning=2.0\n".write(toFile: report + "/x", atomically: true, encoding: .utf8)
        await daemon.readUpdateReport()
        state = await daemon.gateway.state
        XCTAssertNil(state.update)
    }
}
