import CastProtocol
import Foundation
import TestSupport
import XCTest

/// `cast-gateway run` as a long-running daemon against the simulator.
final class DaemonTests: XCTestCase {
    private func startDaemon(_ directory: URL, device: String) throws -> ManagedProcess {
        try startGatewayDaemon(self, in: directory, config: "[device]\nhost = \(device)\n[log]\nlevel = info\n")
    }

    func testChangesByAnotherSenderAreReflected() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let daemon = try startDaemon(directory, device: simulator.device)
        // A phone (here: another cast-gateway process) casts and pauses.
        XCTAssertEqual(try runGateway(["cast", "http://media.test/a.mp4", "--device", simulator.device, "--title", "From Phone"]).status, 0)
        XCTAssertNotNil(daemon.waitForLine(containing: #"* PLAYING "From Phone""#), daemon.allOutput)
        XCTAssertEqual(try runGateway(["control", "pause", "--device", simulator.device]).status, 0)
        XCTAssertNotNil(daemon.waitForLine(containing: #"* PAUSED "From Phone""#), daemon.allOutput)
        simulator.control("volume 0.2")
        XCTAssertNotNil(daemon.waitForLine(containing: "vol 20%"), daemon.allOutput)
        simulator.control("stop-app")
        XCTAssertNotNil(daemon.waitForLine(containing: "was closed on the receiver"), daemon.allOutput)
        daemon.stop()
        XCTAssertFalse(daemon.isRunning)
    }

    func testHeartbeatLossIsDetectedAndRecovered() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let daemon = try startDaemon(directory, device: simulator.device)
        let started = Date()
        XCTAssertEqual(simulator.control("fault ignore-pings on"), "ok")
        let lost = daemon.waitForLine(containing: "heartbeat lost", timeout: 30)
        XCTAssertNotNil(lost, daemon.allOutput)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(elapsed, 14, "declared dead too early")
        XCTAssertLessThanOrEqual(elapsed, 22, "declared dead too late")
        XCTAssertEqual(simulator.control("fault ignore-pings off"), "ok")
        let reconnectedCount = { daemon.stderr.filter { $0.contains("connected to 127.0.0.1") }.count }
        XCTAssertNotNil(daemon.waitForLine(timeout: 10) { _ in reconnectedCount() >= 2 }, daemon.allOutput)
    }

    func testSimulatorKilledAndRestartedIsRejoinedWithoutRelaunch() async throws {
        let directory = try temporaryDirectory(self)
        let state = directory.appendingPathComponent("receiver-state.json").path
        let first = try SimulatorProcess(directory: directory, logName: "before.jsonl", extraArguments: ["--state", state])
        let port = first.port
        let daemon = try startDaemon(directory, device: first.device)
        XCTAssertEqual(try runGateway(["cast", "http://media.test/a.mp4", "--device", first.device, "--title", "Keeps Playing"]).status, 0)
        XCTAssertNotNil(daemon.waitForLine(containing: #"* PLAYING "Keeps Playing""#), daemon.allOutput)
        first.process.stop(signal: SIGKILL)
        XCTAssertNotNil(daemon.waitForLine(containing: "* OFFLINE"), daemon.allOutput)

        let second = try SimulatorProcess(directory: directory, port: port, logName: "after.jsonl", extraArguments: ["--state", state])
        defer { second.stop() }
        let rejoinedAt = daemon.stderr.count
        XCTAssertNotNil(daemon.waitForLine(timeout: 20) { line in
            daemon.stderr.dropFirst(rejoinedAt).contains { $0.contains(#"* PLAYING "Keeps Playing""#) }
        }, daemon.allOutput)
        // The rejoin shows the media it had at once (no IDLE flash), then connects to the
        // app and asks for its status: wait for those messages rather than expect them first.
        let joined = await eventually {
            let received = second.received()
            return received.contains { $0.namespace == CastNamespace.connection && $0.destination != "receiver-0" }
                && received.contains { $0.namespace == CastNamespace.media && $0.text.contains("GET_STATUS") }
        }
        XCTAssertTrue(joined, "no CONNECT to the app's transport and media GET_STATUS: \(second.received().map(\.namespace))")
        XCTAssertEqual(second.payloads(ofType: "LAUNCH"), [], "the daemon relaunched instead of joining")
        XCTAssertEqual(try runGateway(["control", "pause", "--device", second.device]).status, 0)
        XCTAssertNotNil(daemon.waitForLine(containing: #"* PAUSED "Keeps Playing""#), daemon.allOutput)
    }

    func testSigtermStopsTheDaemonCleanly() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let daemon = try startDaemon(directory, device: simulator.device)
        kill(daemon.pid, SIGTERM)
        XCTAssertEqual(daemon.waitForExit(timeout: 5), 0, daemon.allOutput)
        XCTAssertNotNil(daemon.waitForLine(containing: "stopping (signal 15)"))
    }

    /// `systemctl reload`: SIGHUP re-reads the file under a playing session.
    func testSighupReloadsTheFileWithoutTouchingTheSessionAndABrokenFileChangesNothing() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let config = directory.appendingPathComponent("gateway.conf")
        try "[device]\nhost = \(simulator.device)\n[console]\ndevice = none\n[log]\nlevel = info\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", config.path])
        defer { daemon.stop() }
        XCTAssertNotNil(daemon.waitForLine(containing: "* IDLE"), daemon.allOutput)
        XCTAssertEqual(try runGateway(["cast", "http://media.test/a.mp4", "--device", simulator.device, "--title", "Film"]).status, 0)
        XCTAssertNotNil(daemon.waitForLine(containing: #"* PLAYING "Film""#), daemon.allOutput)

        try "[device]\nhost = \(simulator.device)\n[console]\ndevice = none\n[log]\nlevel = debug\n[presets]\n1 = http://media.test/one.mp4\n"
            .write(to: config, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        XCTAssertNotNil(daemon.waitForLine(containing: "configuration reloaded from"), daemon.allOutput)
        XCTAssertNotNil(daemon.waitForLine(containing: " debug "), "the new log level applies: \(daemon.allOutput)")

        try "[device]\nhost = \(simulator.device)\n[log]\nlevel = loud\n".write(to: config, atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        let refused = daemon.waitForLine(containing: "configuration not reloaded")
        XCTAssertNotNil(refused, daemon.allOutput)
        XCTAssertTrue(refused?.contains("gateway.conf:4: [log] level") ?? false, refused ?? "")
        XCTAssertEqual(daemon.stderr.filter { $0.contains("[log] level") }.count, 1, "one failure, one message: \(daemon.allOutput)")
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(daemon.stderr.filter { $0.contains("cast: connected to") }.count, 1, "the reloads must not reconnect: \(daemon.allOutput)")
        XCTAssertEqual(simulator.payloads(ofType: "LAUNCH").count, 1, "nor relaunch")
        XCTAssertEqual(try runGateway(["control", "pause", "--device", simulator.device]).status, 0)
        XCTAssertNotNil(daemon.waitForLine(containing: #"* PAUSED "Film""#), "the session is untouched: \(daemon.allOutput)")
    }
}
