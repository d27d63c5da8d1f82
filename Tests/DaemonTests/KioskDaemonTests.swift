import CastProtocol
import Commands
import Foundation
import GatewayCore
import GatewayModel
import JSON
import ReceiverSimulator
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// The kiosk inside the daemon: console commands, and the live reload of the
/// `[kiosk]` section and of the playlist file.
final class KioskDaemonTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-daemon-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func write(_ text: String, to name: String) throws {
        try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    private func config(volume: Int) -> String {
        """
        [device]
        host = tv.test
        [console]
        device = none
        [kiosk]
        playlist = lobby.m3u
        volume = \(volume)
        state-directory = \(directory.appendingPathComponent("state").path)
        """
    }

    func testConsoleCommandsAndLiveReloadOfTheSectionAndOfThePlaylistFile() async throws {
        try write(config(volume: 20), to: "gateway.conf")
        try write("#EXTINF:-1,Lobby film\nhttp://media.test/lobby.mp4\nhttp://media.test/spa.mp4\n", to: "lobby.m3u")
        let configPath = directory.appendingPathComponent("gateway.conf").path
        let log = directory.appendingPathComponent("receiver.jsonl").path
        let running = try InProcessDaemon.start(config: configPath, simulatorLog: log)
        let (daemon, group, task) = (running.daemon, running.group, running.task)
        defer { group.shutdown() }
        let gateway = daemon.gateway
        let playing = await eventually { let state = await gateway.state; return state.contentID == "http://media.test/lobby.mp4" && state.player == .playing }
        XCTAssertTrue(playing, "start = boot plays the first item")
        let interpreter = daemon.interpreter()
        let status = await interpreter.run("playlist")
        XCTAssertTrue(status.contains { $0.hasPrefix("now: playing item 1/2 \"Lobby film\"") }, "\(status)")
        let help = await interpreter.run("help")
        XCTAssertTrue(help.contains { $0.hasPrefix("checkout") }, "\(help)")

        // The file changes alone: a reload re-reads it, the current item plays on.
        try write("http://media.test/breakfast.mp4\n#EXTINF:-1,Lobby film\nhttp://media.test/lobby.mp4\nhttp://media.test/spa.mp4\n", to: "lobby.m3u")
        let error = await daemon.reload()
        XCTAssertNil(error)
        let reloaded = await interpreter.run("playlist")
        XCTAssertTrue(reloaded.contains { $0.hasPrefix("now: playing item 2/3 \"Lobby film\"") }, "\(reloaded)")
        let loads = { () -> [String] in
            running.payloads.filter { $0["type"]?.stringValue == "LOAD" }
                .compactMap { $0["media"]?["contentId"]?.stringValue }
        }
        XCTAssertEqual(loads(), ["http://media.test/lobby.mp4"], "re-reading the file does not reload the playing item")
        let items = await gateway.state.kioskItems
        XCTAssertEqual(items, KioskItems(names: ["breakfast.mp4", "Lobby film", "spa.mp4"], playing: 1), "the items in the state (Home Assistant's Play select)")

        // An item by number: the console's and MQTT's `playlist play N`.
        let picked = await interpreter.run("playlist play 3")
        XCTAssertEqual(picked, ["ok: item 3/3"])
        let spa = await eventually { loads().last == "http://media.test/spa.mp4" }
        XCTAssertTrue(spa, "\(loads())")
        let tooFar = await interpreter.run("playlist play 9")
        XCTAssertEqual(tooFar, ["error: no item 9: the playlist has 3 (see 'playlist')"])
        let typed = await interpreter.execute(.playlist(.play(9)))
        XCTAssertEqual(typed, .failure(CommandError(.badArgument, "no item 9: the playlist has 3 (see 'playlist')")), "a failure with its code, not a line")

        // The section changes: the player restarts and resumes the same item.
        try write(config(volume: 40), to: "gateway.conf")
        let error2 = await daemon.reload()
        XCTAssertNil(error2)
        let resumed = await eventually { loads().count == 3 }
        XCTAssertTrue(resumed, "\(loads())")
        XCTAssertEqual(loads().last, "http://media.test/spa.mp4", "the restarted player resumes the saved item")

        let checkout = await interpreter.run("checkout")
        XCTAssertTrue(checkout.first?.hasPrefix("ok: checkout:") ?? false, "\(checkout)")
        XCTAssertTrue(checkout.first?.contains("volume 40%") ?? false, "the new [kiosk] volume applies: \(checkout)")
        let first = await eventually { loads().last == "http://media.test/breakfast.mp4" }
        XCTAssertTrue(first, "checkout restarts from item 1: \(loads())")
        let volume = await gateway.state.volumePercent
        XCTAssertEqual(volume, 40)

        // [kiosk] removed: its items leave the state.
        try write(config(volume: 40).components(separatedBy: "[kiosk]")[0], to: "gateway.conf")
        let error3 = await daemon.reload()
        XCTAssertNil(error3)
        let cleared = await eventually { await gateway.state.kioskItems == nil }
        XCTAssertTrue(cleared, "the items of a kiosk turned off are not offered")

        group.shutdown()
        let stoppedInTime = await task.value
        XCTAssertTrue(stoppedInTime, "every service stops within the group's deadline")
    }

    func testCommandsWithoutAKioskSaySo() async throws {
        let settings = DaemonSettings()
        let daemon = Daemon(path: "/nonexistent.conf", settings: settings, connector: { _, _ in
            throw SystemError("no network in this test", errno: 111)
        }, version: "test")
        let lines = await daemon.interpreter().run("checkout")
        XCTAssertEqual(lines.count, 1)
        XCTAssertTrue(lines.first?.hasPrefix("error: the kiosk is not running") ?? false, "\(lines)")
        let usage = await daemon.interpreter().run("playlist shuffle")
        XCTAssertEqual(usage, ["error: usage: playlist [reload | start | stop | next | prev | play N]"])
        for line in ["playlist play", "playlist play 0", "playlist play two", "playlist play 1 2"] {
            let reply = await daemon.interpreter().run(line)
            XCTAssertEqual(reply, ["error: usage: playlist play N, N an item number from 1 (see 'playlist')"], line)
        }
    }
}
