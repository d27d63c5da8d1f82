import Foundation
import GatewayCore
import ReceiverSimulator
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// `[mqtt]` in the daemon: a broker that cannot be reached is one clear line
/// in `status`, and the cast session works on regardless.
final class FleetDaemonTests: XCTestCase {
    func testAnUnreachableBrokerIsShownInStatusAndTheCastSessionKeepsWorking() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-daemon-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("gateway.conf").path
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        try "[device]\nhost = tv.test\n[console]\ndevice = none\n[mqtt]\nbroker = mqtt://127.0.0.1:1\nroom = 101\nha-discovery = false\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let inProcess = try InProcessDaemon.start(config: config)
        let (daemon, group, running) = (inProcess.daemon, inProcess.group, inProcess.task)
        let interpreter = daemon.interpreter()
        var status: [String] = []
        let shown = await eventually(timeout: .seconds(15)) {
            status = await interpreter.run("status")
            return status.contains { $0.hasPrefix("  mqtt: ") }
        }
        XCTAssertTrue(shown, "\(status)")
        XCTAssertTrue(status.contains { $0.contains("127.0.0.1:1") }, "the problem names the broker: \(status)")
        let cast = await interpreter.run("cast http://media.test/a.mp4 Film")
        XCTAssertEqual(cast, ["ok"], "the cast session does not depend on MQTT")
        let playing = await eventually { await daemon.gateway.state.player == .playing }
        XCTAssertTrue(playing)
        // A reload without [mqtt] withdraws its problem with it.
        try "[device]\nhost = tv.test\n[console]\ndevice = none\n".write(toFile: config, atomically: true, encoding: .utf8)
        let reloadError = await daemon.reload()
        XCTAssertNil(reloadError)
        let withdrawn = await eventually {
            status = await interpreter.run("status")
            return !status.contains { $0.hasPrefix("  mqtt: ") }
        }
        XCTAssertTrue(withdrawn, "\(status)")
        group.shutdown()
        let stoppedInTime = await running.value
        XCTAssertTrue(stoppedInTime, "every service stops within the group's deadline")
    }
}
