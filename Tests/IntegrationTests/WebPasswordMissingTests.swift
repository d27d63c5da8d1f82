import Foundation
import XCTest

/// The image's default config names a password file that only exists when
/// firstboot.conf set a web-password: without it the box simply has no web
/// interface. check-config says why in one line, the daemon says it once and
/// keeps running (no failure, no restarts), a reload changes nothing.
final class WebPasswordMissingTests: XCTestCase {
    func testAMissingPasswordFileMeansNoWebInterfaceSaidOnce() throws {
        let directory = try temporaryDirectory(self)
        let passwordFile = directory.appendingPathComponent("web-password").path
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let config = """
            [device]
            host = \(simulator.device)
            [web]
            listen = 127.0.0.1:0
            password-file = \(passwordFile)

            """
        let checked = directory.appendingPathComponent("checked.conf")
        try config.write(to: checked, atomically: true, encoding: .utf8)
        let check = try runGateway(["check-config", checked.path])
        XCTAssertEqual(check.status, 0, check.output)
        let webLines = check.output.split(separator: "\n").filter { $0.contains("web:") }
        XCTAssertEqual(webLines, ["  web: off: there is no password file \(passwordFile); create it with: "
            + "cast-gateway web-password \(passwordFile) (on the image: firstboot.conf's web-password)"], check.output)

        let daemon = try startGatewayDaemon(self, in: directory, config: config)
        XCTAssertNotNil(daemon.waitForLine(containing: "no web interface: there is no password file \(passwordFile)"), daemon.allOutput)
        kill(daemon.pid, SIGHUP)
        XCTAssertNotNil(daemon.waitForLine(containing: "configuration reloaded"), daemon.allOutput)
        XCTAssertTrue(daemon.isRunning, daemon.allOutput)
        XCTAssertEqual(daemon.allOutput.components(separatedBy: "no web interface").count - 1, 1, daemon.allOutput)
        XCTAssertFalse(daemon.allOutput.contains("web failed"), daemon.allOutput)
        XCTAssertFalse(daemon.allOutput.contains("web interface on http"), daemon.allOutput)
    }
}
