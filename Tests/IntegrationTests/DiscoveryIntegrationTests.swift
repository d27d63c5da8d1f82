import CastProtocol
import Foundation
import JSON
import TestSupport
import XCTest

/// Discovery against a real avahi-daemon and D-Bus on loopback only.
final class DiscoveryIntegrationTests: XCTestCase {
    private func publishedSimulator(_ avahi: AvahiEnvironment, name: String, log: String, model: String? = nil,
                                    extra: [String] = []) throws -> SimulatorProcess {
        var arguments = ["--publish", name] + extra
        if let model { arguments += ["--model", model] }
        let simulator = try SimulatorProcess(directory: avahi.directory, logName: log, extraArguments: arguments,
                                             environment: avahi.environment)
        addTeardownBlock { simulator.stop() }
        return simulator
    }

    private func startDaemon(_ avahi: AvahiEnvironment, config: String) throws -> ManagedProcess {
        let file = avahi.directory.appendingPathComponent("gateway.conf")
        try config.write(to: file, atomically: true, encoding: .utf8)
        let daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", file.path], environment: avahi.environment)
        addTeardownBlock { daemon.stop() }
        return daemon
    }

    private func discover(_ avahi: AvahiEnvironment, until expected: Int) throws -> [JSONValue] {
        let deadline = Date().addingTimeInterval(15)
        var devices: [JSONValue] = []
        repeat {
            let result = try runGateway(["discover", "--json", "--timeout", "2"], environment: avahi.environment)
            XCTAssertEqual(result.status, 0, result.output)
            devices = (try? JSONValue(parsing: result.output.split(separator: "\n").first.map(String.init) ?? "[]"))?.arrayValue ?? []
        } while devices.count < expected && Date() < deadline
        return devices
    }

    func testDiscoverListsPublishedSimulatorsWithTheirTXTFields() throws {
        let avahi = try AvahiEnvironment(test: self)
        let living = try publishedSimulator(avahi, name: "Living Room TV", log: "living.jsonl")
        let bedroom = try publishedSimulator(avahi, name: "Bedroom TV", log: "bedroom.jsonl", model: "Chromecast Ultra")
        let devices = try discover(avahi, until: 2)
        XCTAssertEqual(devices.compactMap { $0["name"]?.stringValue }, ["Bedroom TV", "Living Room TV"])
        let bedroomEntry = try XCTUnwrap(devices.first)
        XCTAssertEqual(bedroomEntry["model"], "Chromecast Ultra")
        XCTAssertEqual(bedroomEntry["host"], "127.0.0.1")
        XCTAssertEqual(bedroomEntry["port"]?.intValue, bedroom.port)
        XCTAssertEqual(devices.last?["port"]?.intValue, living.port)
        XCTAssertEqual(bedroomEntry["group"], false)
        XCTAssertEqual(bedroomEntry["txt"]?["fn"], "Bedroom TV")
        XCTAssertEqual(bedroomEntry["txt"]?["st"], "0")
        XCTAssertEqual(bedroomEntry["txt"]?["ca"], "4101")
        XCTAssertEqual(bedroomEntry["txt"]?["id"]?.stringValue?.count, 32)
        XCTAssertNotNil(bedroomEntry["txt"]?["bs"], "unknown TXT keys are kept")

        let table = try runGateway(["discover", "--timeout", "2"], environment: avahi.environment)
        XCTAssertTrue(table.output.contains("NAME"), table.output)
        XCTAssertTrue(table.output.contains("Living Room TV") && table.output.contains("Chromecast Ultra"), table.output)
    }

    func testDaemonPicksTheNamedDeviceAndFollowsItAcrossUnpublishAndANewPort() throws {
        let avahi = try AvahiEnvironment(test: self)
        _ = try publishedSimulator(avahi, name: "Living Room TV", log: "living.jsonl")
        let bedroom = try publishedSimulator(avahi, name: "Bedroom TV", log: "bedroom.jsonl")
        let daemon = try startDaemon(avahi, config: "[device]\nname = Bedroom TV\n")
        XCTAssertNotNil(daemon.waitForLine(containing: "connected to 127.0.0.1:\(bedroom.port)", timeout: 15), daemon.allOutput)

        bedroom.stop()  // withdraws its mDNS record and closes the link
        // Held, so that the device really comes back on another port (a free port may be the same one again).
        let oldPort = try? HeldPort(UInt16(bedroom.port))
        defer { oldPort?.close() }
        XCTAssertNotNil(daemon.waitForLine(containing: #"* SEARCHING for "Bedroom TV""#, timeout: 15), daemon.allOutput)

        let moved = try publishedSimulator(avahi, name: "Bedroom TV", log: "bedroom-moved.jsonl")
        XCTAssertNotEqual(moved.port, bedroom.port)
        XCTAssertNotNil(daemon.waitForLine(containing: "connected to 127.0.0.1:\(moved.port)", timeout: 15), daemon.allOutput)
        XCTAssertNotNil(daemon.waitForLine(containing: "* IDLE"), daemon.allOutput)
        XCTAssertTrue(daemon.isRunning, "followed without a restart")
    }

    func testDiscoveryResumesAfterAvahiRestarts() throws {
        let avahi = try AvahiEnvironment(test: self)
        let daemon = try startDaemon(avahi, config: "[device]\nname = Den TV\n")
        XCTAssertNotNil(daemon.waitForLine(containing: "mDNS is available", timeout: 15), daemon.allOutput)
        avahi.stopAvahi(signal: SIGKILL)
        XCTAssertNotNil(daemon.waitForLine(containing: "avahi-daemon is not running", timeout: 15), daemon.allOutput)
        try avahi.startAvahi()
        let available = { daemon.stderr.filter { $0.contains("mDNS is available") }.count }
        XCTAssertNotNil(daemon.waitForLine(timeout: 15) { _ in available() >= 2 }, daemon.allOutput)
        let den = try publishedSimulator(avahi, name: "Den TV", log: "den.jsonl")
        XCTAssertNotNil(daemon.waitForLine(containing: "connected to 127.0.0.1:\(den.port)", timeout: 15), daemon.allOutput)
    }

    func testStaticHostWorksWithoutAnyMDNS() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let config = directory.appendingPathComponent("gateway.conf")
        try "[device]\nhost = \(simulator.device)\n".write(to: config, atomically: true, encoding: .utf8)
        let nowhere = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory.path)/no-such-bus"]
        let daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", config.path], environment: nowhere)
        defer { daemon.stop() }
        XCTAssertNotNil(daemon.waitForLine(containing: "* IDLE", timeout: 10), daemon.allOutput)
        // Nothing asked for mDNS: the daemon does not try (a 'devices' or 'use' would start it).
        XCTAssertFalse(daemon.stderr.contains { $0.contains("D-Bus") || $0.contains("mDNS") || $0.contains("avahi") }, daemon.allOutput)
        let result = try runGateway(["discover", "--timeout", "1"], environment: nowhere)
        XCTAssertEqual(result.status, 69, result.output)
        XCTAssertTrue(result.output.contains("mDNS discovery is not available") && result.output.contains("avahi-daemon"), result.output)
        XCTAssertFalse(result.output.contains("no Cast devices found"), "one failure, one message: \(result.output)")
    }
}
