import CastProtocol
import Foundation
import JSON
import XCTest

/// IR remote → real lircd → cast-gateway → cast-receiver-sim, over real sockets.
final class LircIntegrationTests: XCTestCase {
    private struct Setup {
        let lircd: LircdProcess
        let simulator: SimulatorProcess
        let daemon: ManagedProcess
    }

    private func start() throws -> Setup {
        let directory = try temporaryDirectory(self)
        let lircd = try LircdProcess(directory: directory)
        addTeardownBlock { lircd.stop() }
        let simulator = try SimulatorProcess(directory: directory)
        addTeardownBlock { simulator.stop() }
        let config = directory.appendingPathComponent("gateway.conf")
        try """
            [device]
            host = \(simulator.device)
            [lirc]
            socket = \(lircd.socketPath)
            [presets]
            1 = http://media.test/one.mp4 | Channel One
            """.write(to: config, atomically: true, encoding: .utf8)
        let daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", config.path])
        addTeardownBlock { daemon.stop() }
        XCTAssertNotNil(daemon.waitForLine(containing: "connected to lircd"), daemon.allOutput)
        XCTAssertNotNil(daemon.waitForLine(containing: "* IDLE"), daemon.allOutput)
        return Setup(lircd: lircd, simulator: simulator, daemon: daemon)
    }

    /// Waits until the simulator has received `count` messages of `type`.
    @discardableResult
    private func waitForMessages(_ simulator: SimulatorProcess, type: String, count: Int = 1,
                                 file: StaticString = #filePath, line: UInt = #line) -> [JSONValue] {
        let deadline = Date().addingTimeInterval(10)
        var found: [JSONValue] = []
        repeat {
            found = simulator.payloads(ofType: type).compactMap { try? JSONValue(parsing: $0) }
            if found.count >= count { return found }
            Thread.sleep(forTimeInterval: 0.02)
        } while Date() < deadline
        XCTFail("the receiver got \(found.count) \(type), expected \(count)", file: file, line: line)
        return found
    }

    func testEachDefaultIRKeyProducesTheRightCastMessage() throws {
        let setup = try start()
        let sim = setup.simulator
        try setup.lircd.simulate(["0000000000000002 00 KEY_1 devinput-64"])
        let load = waitForMessages(sim, type: "LOAD")
        XCTAssertEqual(load.first?["media"]?["contentId"], "http://media.test/one.mp4")
        XCTAssertNotNil(setup.daemon.waitForLine(containing: #"* PLAYING "Channel One""#), setup.daemon.allOutput)

        let steps: [(key: String, code: String, type: String, count: Int)] = [
            ("KEY_PAUSE", "77", "PAUSE", 1), ("KEY_PLAY", "cf", "PLAY", 1), ("KEY_PLAYPAUSE", "a4", "PAUSE", 2),
            ("KEY_PLAYPAUSE", "a4", "PLAY", 2), ("KEY_VOLUMEUP", "73", "SET_VOLUME", 1), ("KEY_VOLUMEDOWN", "72", "SET_VOLUME", 2),
            ("KEY_MUTE", "71", "SET_VOLUME", 3), ("KEY_FASTFORWARD", "d0", "SEEK", 1), ("KEY_REWIND", "a8", "SEEK", 2),
            ("KEY_STOP", "80", "STOP", 1),
        ]
        for step in steps {
            try setup.lircd.simulate(["00000000000000\(step.code) 00 \(step.key) devinput-64"])
            waitForMessages(sim, type: step.type, count: step.count)
        }
        let volumes = sim.payloads(ofType: "SET_VOLUME").compactMap { try? JSONValue(parsing: $0)["volume"] }
        XCTAssertEqual(volumes.first?["level"]?.doubleValue ?? 0, 0.55, accuracy: 1e-9)
        XCTAssertEqual(volumes.dropFirst().first?["level"]?.doubleValue ?? 0, 0.50, accuracy: 1e-9)
        XCTAssertEqual(volumes.last, ["muted": true])
        let seeks = sim.payloads(ofType: "SEEK").compactMap { try? JSONValue(parsing: $0)["currentTime"]?.doubleValue }
        XCTAssertEqual(seeks.count, 2)
        if seeks.count == 2 { XCTAssertEqual(seeks[1], seeks[0] - 10, accuracy: 1.5, "rewind goes back 10 s from the seek") }
        XCTAssertEqual(sim.mediaCommands(), ["LOAD", "PAUSE", "PLAY", "PAUSE", "PLAY", "SEEK", "SEEK", "STOP"])

        // The other defaults. Media that cannot take a command gets nothing:
        // the gateway refuses it locally (one item: no next; no tracks: no subtitles).
        try setup.lircd.simulate(["0000000000000002 00 KEY_1 devinput-64"])
        waitForMessages(sim, type: "LOAD", count: 2)
        let more: [(key: String, code: String, type: String?, count: Int)] = [
            ("KEY_OK", "160", "PAUSE", 3), ("KEY_RIGHT", "6a", "SEEK", 3), ("KEY_LEFT", "69", "SEEK", 4),
            ("KEY_NEXTSONG", "a3", nil, 0), ("KEY_CHANNELDOWN", "193", nil, 0), ("KEY_SUBTITLE", "172", nil, 0),
            ("KEY_AUDIO", "188", nil, 0), ("KEY_2", "03", nil, 0), ("KEY_POWER", "74", nil, 0),
        ]
        for step in more {
            let code = String(repeating: "0", count: 16 - step.code.count) + step.code
            try setup.lircd.simulate(["\(code) 00 \(step.key) devinput-64"])
            if let type = step.type { waitForMessages(sim, type: type, count: step.count) } else { Thread.sleep(forTimeInterval: 0.3) }
        }
        XCTAssertFalse(sim.mediaCommands().contains("QUEUE_UPDATE"), "next/previous on one item must not be sent")
        XCTAssertFalse(sim.mediaCommands().contains("EDIT_TRACKS_INFO"), "no tracks: nothing to cycle")
        try setup.lircd.simulate(["00000000000000ae 00 KEY_EXIT devinput-64"])
        let stops = waitForMessages(sim, type: "STOP", count: 2)
        XCTAssertNotNil(stops.last?["sessionId"], "KEY_EXIT stops the app on the receiver namespace")
        XCTAssertNotNil(setup.daemon.waitForLine(containing: "preset 2 is not set"), setup.daemon.allOutput)
        XCTAssertNotNil(setup.daemon.waitForLine(containing: "does not support next"), setup.daemon.allOutput)

        let keys = try runGateway(["--version"])  // the daemon keeps running meanwhile
        XCTAssertEqual(keys.status, 0)
        XCTAssertTrue(setup.daemon.isRunning)
    }

    func testAThousandVolumeRepeatsAreCoalescedIntoFewRequests() throws {
        let setup = try start()
        let sim = setup.simulator
        let burst = (0..<1000).map { index in
            "0000000000000073 \(String(format: "%02x", index % 256)) KEY_VOLUMEUP devinput-64"
        }
        try setup.lircd.simulate(burst)
        let deadline = Date().addingTimeInterval(15)
        while !(sim.control("status")?.contains("volume=100%") ?? false), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(sim.control("status")?.contains("volume=100%") ?? false, "the level must end at 100%")
        Thread.sleep(forTimeInterval: 0.5)  // nothing stale may follow
        let levels = sim.payloads(ofType: "SET_VOLUME").compactMap { try? JSONValue(parsing: $0)["volume"]?["level"]?.doubleValue }
        XCTAssertGreaterThan(levels.count, 0)
        XCTAssertLessThanOrEqual(levels.count, 60, "1,000 repeats must not become 1,000 requests: \(levels.count)")
        XCTAssertEqual(levels.last ?? 0, 1, accuracy: 1e-9)
        XCTAssertEqual(levels, levels.sorted(), "levels only rise: no stale request arrives late")
    }

    func testLircdRestartLosesNoLaterKey() throws {
        let setup = try start()
        try setup.lircd.simulate(["0000000000000002 00 KEY_1 devinput-64"])
        waitForMessages(setup.simulator, type: "LOAD")
        setup.lircd.stop(signal: SIGKILL)
        XCTAssertNotNil(setup.daemon.waitForLine(containing: "lost lircd"), setup.daemon.allOutput)
        let restarted = try LircdProcess(directory: URL(fileURLWithPath: setup.lircd.socketPath).deletingLastPathComponent())
        defer { restarted.stop() }
        let reconnected = { setup.daemon.stderr.filter { $0.contains("connected to lircd") }.count }
        XCTAssertNotNil(setup.daemon.waitForLine(timeout: 15) { _ in reconnected() >= 2 }, setup.daemon.allOutput)
        try restarted.simulate(["0000000000000077 00 KEY_PAUSE devinput-64"])
        waitForMessages(setup.simulator, type: "PAUSE")
    }
}
