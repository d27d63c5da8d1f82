import CastProtocol
import Foundation
import JSON
import TestSupport
import XCTest

/// The hotel-room box end to end, with real processes only: `cast-gateway run`
/// with `[media]` and `[kiosk]`, a `cast-receiver-sim` that fetches what it is
/// told to play (so its durations come from the MP4 files), three MP4s made by
/// ffmpeg, and pychromecast as the guest's phone.
final class KioskIntegrationTests: XCTestCase {
    private func makeMP4(_ path: String, seconds: Int) throws {
        let ffmpeg = try ManagedProcess("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                                            "testsrc=duration=\(seconds):size=64x48:rate=5",
                                                            "-pix_fmt", "yuv420p", "-movflags", "+faststart", path])
        XCTAssertEqual(ffmpeg.waitForExit(timeout: 60), 0, ffmpeg.allOutput)
    }

    private struct Box {
        let directory: URL
        let simulator: SimulatorProcess
        let config: URL
        let stateDirectory: URL
        /// The box's serial console, on a pseudo-terminal.
        let terminal: PseudoTerminal
    }

    private func makeBox(itemSeconds: [Int]) throws -> Box {
        let directory = try temporaryDirectory(self)
        let media = directory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        var playlist = "#EXTM3U\n"
        for (index, seconds) in itemSeconds.enumerated() {
            let file = media.appendingPathComponent("item\(index + 1).mp4").path
            try makeMP4(file, seconds: seconds)
            playlist += "#EXTINF:-1,Item \(index + 1)\n\(file)\n"
        }
        try playlist.write(to: directory.appendingPathComponent("lobby.m3u"), atomically: true, encoding: .utf8)
        let simulator = try SimulatorProcess(directory: directory, extraArguments: ["--fetch-media"])
        addTeardownBlock { simulator.stop() }
        let stateDirectory = directory.appendingPathComponent("state")
        let config = directory.appendingPathComponent("gateway.conf")
        let terminal = try PseudoTerminal()
        let link = directory.appendingPathComponent("serial0").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: terminal.slavePath)
        try """
            [device]
            host = \(simulator.device)
            [console]
            device = \(link)
            [media]
            roots = \(media.path)
            port = 0
            [kiosk]
            playlist = \(directory.appendingPathComponent("lobby.m3u").path)
            volume = 30
            guest-idle = 5
            state-directory = \(stateDirectory.path)
            """.write(to: config, atomically: true, encoding: .utf8)
        return Box(directory: directory, simulator: simulator, config: config, stateDirectory: stateDirectory, terminal: terminal)
    }

    /// The contentIds of the LOADs the receiver got, in order.
    private func loads(_ simulator: SimulatorProcess) -> [String] {
        simulator.payloads(ofType: "LOAD").compactMap { try? JSONValue(parsing: $0)["media"]?["contentId"]?.stringValue }
    }

    func testThreeLocalFilesLoopAGuestTakesOverAndHandsBackAndCheckoutResets() throws {
        // Item 1 is long: the guest casts while it plays again. With short
        // items only, a busy machine could start the guest's phone just as an
        // item ends, and the box's LOAD of the next one, already on its way,
        // would land after the guest's (Cast's last LOAD wins; no box can
        // call back a LOAD it has sent).
        let box = try makeBox(itemSeconds: [20, 2, 2])
        let daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", box.config.path])
        defer { daemon.stop() }
        // The loop plays the three files in order, fetched by the receiver from the box, and starts again.
        XCTAssertNotNil(daemon.waitForLine(timeout: 60) { _ in self.loads(box.simulator).count >= 4 }, daemon.allOutput)
        let item1Again = Date()
        let played = loads(box.simulator)
        XCTAssertTrue(played.prefix(4).map { $0.split(separator: "/").last.map(String.init) ?? "" } == ["item1.mp4", "item2.mp4", "item3.mp4", "item1.mp4"],
                      "\(played)")
        XCTAssertTrue(played.allSatisfy { $0.hasPrefix("http://127.0.0.1:") }, "\(played)")
        XCTAssertTrue(box.simulator.payloads(ofType: "LOAD_FAILED").isEmpty)

        // A guest casts from a phone: the box stops its loop and does not fight back.
        // (The guest's media must be fetchable by the receiver: the box's own first file, by another URL.)
        let python = try Pychromecast.python()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("pychromecast/guest.py").path
        let guest = try ManagedProcess(python, [script, String(box.simulator.port), "play", played[0] + "?from-a-phone"])
        XCTAssertEqual(guest.waitForExit(timeout: 60), 0, guest.allOutput)
        let loadsAtTakeover = loads(box.simulator).count
        XCTAssertNotNil(daemon.waitForLine(containing: "guest", timeout: 10), daemon.allOutput)
        // Well past the end the box's item 1 would have had (20 s after its
        // LOAD), and 6 s at least: the box sent no LOAD of its own meanwhile.
        // The guest's 20 s and guest-idle's 5 s come later than that.
        let quiet = max(6, 23 - Date().timeIntervalSince(item1Again))
        XCTAssertNil(daemon.waitForLine(timeout: quiet) { _ in self.loads(box.simulator).count > loadsAtTakeover },
                     "the box fought the guest: \(loads(box.simulator))")
        XCTAssertEqual(loads(box.simulator).count, loadsAtTakeover)

        // The guest stops: the loop comes back.
        let quit = try ManagedProcess(python, [script, String(box.simulator.port), "quit"])
        XCTAssertEqual(quit.waitForExit(timeout: 60), 0, quit.allOutput)
        XCTAssertNotNil(daemon.waitForLine(timeout: 20) { _ in self.loads(box.simulator).count > loadsAtTakeover }, daemon.allOutput)

        // Checkout at the front desk: the volume goes back to [kiosk] volume and the loop restarts at item 1.
        XCTAssertEqual(box.simulator.control("volume 0.8"), "ok")
        let loadsBeforeCheckout = loads(box.simulator).count
        box.terminal.type("checkout\r")
        XCTAssertNotNil(daemon.waitForLine(timeout: 20) { _ in
            (box.simulator.control("status")?.contains("volume=30%") ?? false) && self.loads(box.simulator).count > loadsBeforeCheckout
        }, "\(box.terminal.text)\n\(daemon.allOutput)")
        XCTAssertEqual(loads(box.simulator).dropFirst(loadsBeforeCheckout).first?.split(separator: "/").last, "item1.mp4")
    }

    func testKillNineMidItemResumesTheSameItemWhereItHadGotTo() throws {
        let box = try makeBox(itemSeconds: [2, 60])
        var daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", box.config.path])
        defer { daemon.stop() }
        // Wait until the long second item has played long enough to be saved mid-item.
        let stateFile = box.stateDirectory.appendingPathComponent("kiosk-state.json").path
        func saved() -> (item: Int, position: Double)? {
            guard let text = try? String(contentsOfFile: stateFile, encoding: .utf8), let json = try? JSONValue(parsing: text),
                  let item = json["item"]?.intValue, let position = json["position"]?.doubleValue else { return nil }
            return (item, position)
        }
        XCTAssertNotNil(daemon.waitForLine(timeout: 40) { _ in (saved()?.item ?? 0) == 1 && (saved()?.position ?? 0) >= 5 }, daemon.allOutput)
        let before = try XCTUnwrap(saved())
        let clock = ContinuousClock()
        let savedSeen = clock.now
        daemon.stop(signal: SIGKILL)
        let loadsBefore = loads(box.simulator).count
        // A fresh daemon; the receiver's app was left as it was (a real power cut).
        daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", box.config.path])
        XCTAssertNotNil(daemon.waitForLine(timeout: 30) { _ in self.loads(box.simulator).count > loadsBefore }, daemon.allOutput)
        let restart = (clock.now - savedSeen) / .seconds(1)
        let resumed = try JSONValue(parsing: try XCTUnwrap(box.simulator.payloads(ofType: "LOAD").last))
        XCTAssertTrue(resumed["media"]?["contentId"]?.stringValue?.hasSuffix("/item2.mp4") ?? false, "\(resumed)\n\(daemon.allOutput)")
        let position = try XCTUnwrap(resumed["currentTime"]?.doubleValue)
        // The receiver plays on while the box restarts, and the kiosk resumes where the receiver
        // has got to: the saved position, plus at most the restart's time (long on a busy machine).
        XCTAssertGreaterThanOrEqual(position, before.position - 2, "resumed at \(position), saved \(before.position)\n\(daemon.allOutput)")
        XCTAssertLessThanOrEqual(position, before.position + restart + 2,
                                 "resumed at \(position), saved \(before.position), \(restart) s after the save was seen\n\(daemon.allOutput)")
    }
}
