import Foundation
import JSON
import ServiceLifecycle
import Synchronization
import CastClient
import CastProtocol
import GatewayCore
import GatewayModel
import ReceiverSimulator
import StatusOutput
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// A daemon in-process against the real simulator over in-memory streams:
/// live reload under a playing session, and the settings' one owner.
final class ReloadTests: XCTestCase {
    private var directory: URL!
    private var configPath: String { directory.appendingPathComponent("gateway.conf").path }

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reload-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        Logger.level = .info
    }

    final class Counter: Sendable {
        let connects = Mutex(0)
    }

    struct Running {
        let daemon: Daemon
        let simulator: ReceiverSimulator
        let counter: Counter
        let group: ServiceGroup
        let task: Task<Bool, Never>
        let log: String

        func stop() async {
            group.shutdown()
            let stoppedInTime = await task.value
            XCTAssertTrue(stoppedInTime, "every service stops within the group's deadline")
        }

        /// The types of the messages the receiver got on `namespace`.
        func received(_ namespace: String) -> [String] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                guard let entry = try? JSONValue(parsing: String(line)), entry["namespace"]?.stringValue == namespace,
                      let data = entry["data"]?.stringValue, let payload = try? JSONValue(parsing: data) else { return nil }
                return payload["type"]?.stringValue
            }
        }
    }

    private func write(_ text: String) throws {
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
        chmod(configPath, 0o600)
    }

    private func start(_ config: String) async throws -> Running {
        try write(config)
        let log = directory.appendingPathComponent("receiver.jsonl").path
        let counter = Counter()
        let inProcess = try InProcessDaemon.start(config: configPath, simulatorLog: log) {
            counter.connects.withLock { $0 += 1 }
        }
        let (daemon, simulator, group, task) = (inProcess.daemon, inProcess.simulator, inProcess.group, inProcess.task)
        let connected = await eventually { await daemon.gateway.state.link == .connected }
        XCTAssertTrue(connected)
        return Running(daemon: daemon, simulator: simulator, counter: counter, group: group, task: task, log: log)
    }

    func testKeymapAndLogLevelChangeUnderAPlayingSessionWithoutReconnecting() async throws {
        let running = try await start("[device]\nhost = tv.test\n[console]\ndevice = none\n[log]\nlevel = info\n")
        let interpreter = running.daemon.interpreter()
        _ = await interpreter.run("cast http://media.test/film.mp4 Film")
        let playing = await eventually { await running.daemon.gateway.state.player == .playing }
        XCTAssertTrue(playing)
        // Today KEY_RED does nothing; after the reload it pauses.
        let value1 = await interpreter.run("key KEY_RED")
        XCTAssertEqual(value1, ["ok"])
        let value2 = await running.daemon.gateway.state.player
        XCTAssertEqual(value2, .playing)

        try write("[device]\nhost = tv.test\n[console]\ndevice = none\n[log]\nlevel = debug\n[keys.evdev]\nKEY_RED = pause\n")
        let error = await running.daemon.reload()
        XCTAssertNil(error)
        XCTAssertEqual(Logger.level, .debug)
        let value3 = await interpreter.run("key KEY_RED")
        XCTAssertEqual(value3, ["ok"])
        let paused = await eventually { await running.daemon.gateway.state.player == .paused }
        XCTAssertTrue(paused, "the new keymap applies at once")
        XCTAssertEqual(running.counter.connects.withLock { $0 }, 1, "the reload must not reconnect")
        XCTAssertEqual(running.received(CastNamespace.receiver).filter { $0 == "LAUNCH" }.count, 1, "nor relaunch")
        let value4 = await running.daemon.gateway.state.link
        XCTAssertEqual(value4, .connected)
        await running.stop()
    }

    func testABrokenFileKeepsTheRunningConfigurationAndSaysWhere() async throws {
        let running = try await start("[device]\nhost = tv.test\n[console]\ndevice = none\n[presets]\n1 = http://media.test/one.mp4 | One\n")
        try write("[device]\nhost = tv.test\n[console]\ndevice = none\n[presets]\n1 = not a url\n")
        let error = await running.daemon.reload()
        XCTAssertEqual(error?.line, 6)
        XCTAssertEqual(error?.key, "[presets] 1")
        let state = await running.daemon.gateway.state
        XCTAssertTrue(state.configProblem?.contains("gateway.conf:6: [presets] 1") ?? false, "\(String(describing: state.configProblem))")
        XCTAssertEqual(LEDPattern.patterns(for: state, starting: false, inputMissing: false)[.error], .flashCode(7))
        let status = await running.daemon.interpreter().run("status")
        XCTAssertTrue(status.contains { $0.hasPrefix("  config: ") && $0.contains("[presets] 1") }, "\(status)")
        // The old presets still work, and the session was never touched.
        let value5 = await running.daemon.interpreter().run("preset 1")
        XCTAssertEqual(value5, ["ok"])
        let title = await eventually { await running.daemon.gateway.state.title == "One" }
        XCTAssertTrue(title)
        XCTAssertEqual(running.counter.connects.withLock { $0 }, 1)
        // Mending the file clears the problem.
        try write("[device]\nhost = tv.test\n[console]\ndevice = none\n[presets]\n1 = http://media.test/two.mp4 | Two\n")
        let mended = await running.daemon.reload()
        XCTAssertNil(mended)
        let value6 = await running.daemon.gateway.state.configProblem
        XCTAssertNil(value6)
        await running.stop()
    }

    func testTypedCredentialsOutliveANamedDeviceLeavingAndLoadCarriesMediaCredentials() async throws {
        let log = directory.appendingPathComponent("receiver.jsonl").path
        var simulatorConfiguration = ReceiverSimulator.Configuration()
        simulatorConfiguration.logPath = log
        let simulator = try ReceiverSimulator(configuration: simulatorConfiguration)
        var cast = CastSettings()
        cast.launchCredentials = LaunchCredentials(credentials: "from-config")
        cast.mediaCredentials = LaunchCredentials(credentials: "media-token", credentialsType: "oauth")
        let gateway = Gateway(settings: GatewaySettings(device: DeviceSettings(target: .name("Living Room")), cast: cast), connector: { _, _ in
            let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
            await simulator.serve(receiverEnd)
            return clientEnd
        })
        let (snapshots, discovery) = AsyncStream.makeStream(of: DiscoverySnapshot.self)
        let following = Task { await gateway.follow(discovery: snapshots) }
        defer { following.cancel() }
        await gateway.start()
        let tv = CastDevice(serviceName: "Chromecast-1", id: "0123456789abcdef0123456789abcdef", name: "Living Room", model: "Chromecast",
                            capabilities: CastDevice.Capabilities(rawValue: 5), busy: false, runningApp: nil, host: "tv.test", port: 8009, txt: [:])
        discovery.yield(DiscoverySnapshot(devices: [tv]))
        let connected = await eventually { await gateway.state.link == .connected }
        XCTAssertTrue(connected)
        await gateway.setLaunchCredentials(LaunchCredentials(credentials: "typed-secret"))
        // The device leaves the network (a new client is built when it returns).
        discovery.yield(DiscoverySnapshot(devices: []))
        let searching = await eventually { if case .searching = await gateway.state.link { true } else { false } }
        XCTAssertTrue(searching)
        discovery.yield(DiscoverySnapshot(devices: [tv]))
        let back = await eventually { await gateway.state.link == .connected }
        XCTAssertTrue(back)
        try await gateway.cast(CastRequest(url: "http://media.test/film.mp4", title: "Film"))
        let receiver = InProcessDaemon.payloads(in: log)
        let launch = receiver.last { $0["type"]?.stringValue == "LAUNCH" }
        XCTAssertEqual(launch?["credentialsData"]?["credentials"]?.stringValue, "typed-secret", "typed credentials survive the device leaving")
        let load = receiver.last { $0["type"]?.stringValue == "LOAD" }
        XCTAssertEqual(load?["credentials"]?.stringValue, "media-token")
        XCTAssertEqual(load?["credentialsType"]?.stringValue, "oauth")
        // Checkout forgets what was typed: the configured credentials apply again.
        await gateway.forgetTypedCredentials()
        try await gateway.perform(.stopApp)
        try await gateway.cast(CastRequest(url: "http://media.test/film.mp4", title: "Film"))
        let relaunch = InProcessDaemon.payloads(in: log).last { $0["type"]?.stringValue == "LAUNCH" }
        XCTAssertEqual(relaunch?["credentialsData"]?["credentials"]?.stringValue, "from-config")
        await gateway.stop()
    }
}
