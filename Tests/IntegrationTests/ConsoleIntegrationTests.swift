import Foundation
import TestSupport
import XCTest

/// The daemon's serial console on a real pseudo-terminal, driving the simulator.
final class ConsoleIntegrationTests: XCTestCase {
    func testConsoleCommandsDriveTheReceiver() async throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let terminal = try PseudoTerminal()
        let link = directory.appendingPathComponent("serial0").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: terminal.slavePath)
        let config = directory.appendingPathComponent("gateway.conf")
        try "[device]\nhost = \(simulator.device)\n[console]\ndevice = \(link)\nbaud = 57600\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", config.path])
        defer { daemon.stop() }
        let prompt = await terminal.waitFor("cast-gateway> ")
        XCTAssertTrue(prompt, daemon.allOutput)
        _ = await terminal.waitFor("* IDLE")

        terminal.type("cast http://media.test/film.mp4 Film Night\r")
        let playing = await terminal.waitFor(#"* PLAYING "Film Night""#)
        XCTAssertTrue(playing, terminal.text)
        terminal.type("pause\r")
        let paused = await terminal.waitFor(#"* PAUSED "Film Night""#)
        XCTAssertTrue(paused, terminal.text)
        terminal.type("vol 30\r")
        let volume = await terminal.waitFor("vol 30%")
        XCTAssertTrue(volume, terminal.text)
        terminal.type("key KEY_PLAYPAUSE\r")
        let resumed = await terminal.waitFor(#"* PLAYING "Film Night""#)
        XCTAssertTrue(resumed)
        terminal.type("keys\r")
        let history = await terminal.waitFor("console KEY_PLAYPAUSE -> toggle")
        XCTAssertTrue(history, terminal.text)
        terminal.type("frobnicate\r")
        let error = await terminal.waitFor("error: unknown command 'frobnicate' (try 'help')")
        XCTAssertTrue(error)
        terminal.type("json on\r")
        terminal.type("status\r")
        let json = await terminal.waitFor(#""command":"status","ok":true"#)
        XCTAssertTrue(json, terminal.text)
        XCTAssertEqual(simulator.mediaCommands(), ["LOAD", "PAUSE", "PLAY"])
        XCTAssertTrue(simulator.control("status")?.contains("volume=30%") ?? false)
        terminal.type("json off\r")

        // Every other command, each with the answer it must give.
        let expectations: [(command: String, answer: String)] = [
            ("help", "seek +S | -S | S | mm:ss"), ("version", "cast-gateway 0.1.0"),
            ("devices", "no Cast devices found"), ("use Kitchen", #"error: no device named "Kitchen""#),
            ("toggle", "ok"), ("seek +10", "ok"), ("seek 1:00", "ok"), ("vol +5", "ok"), ("mute", "ok"),
            ("subs next", "error: the current media has no subtitle tracks"), ("subs off", "ok"),
            ("next", "error: the receiver does not support next"), ("queue http://media.test/second.mp4", "ok"),
            ("next", "ok"), ("prev", "ok"), ("stop", "ok"), ("launch CC1AD845", "ok"), ("launch ABCD1234 --android", "ok"),
            ("creds s3cr3t-value", "ok: launch credentials set (not shown)"), ("creds clear", "ok: launch credentials cleared"),
            ("log debug", "ok: log level debug"), ("log info", "ok: log level info"), ("seek", "error: usage: seek"),
            ("play", "error: nothing is loaded"),
        ]
        for (command, answer) in expectations {
            let mark = terminal.text.count
            terminal.type(command + "\r")
            // A bare "ok" must be a whole line of its own; other answers are line prefixes.
            let answered = await terminal.waitFor(answer == "ok" ? "\r\nok\r\n" : answer, after: mark)
            XCTAssertTrue(answered, "'\(command)' did not answer '\(answer)'")
        }
        XCTAssertFalse(terminal.text.contains("s3cr3t-value"), "credentials were echoed")
        let launches = simulator.payloads(ofType: "LAUNCH")
        XCTAssertTrue(launches.last?.contains(#""supportedAppTypes":["WEB","ANDROID_TV"]"#) ?? false, "\(launches)")
        XCTAssertTrue(simulator.mediaCommands().contains("QUEUE_INSERT"))
        XCTAssertTrue(simulator.mediaCommands().contains("QUEUE_UPDATE"))
    }
}
