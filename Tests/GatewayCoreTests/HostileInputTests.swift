import CastProtocol
import Commands
import GatewayModel
@testable import Interpreter
import JSON
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import GatewayCore

/// What a hostile receiver, a mistyped console line or a curious user can
/// send: absurd numbers, forged log lines, secrets that must not come back.
extension GatewayTests {
    func testAbsurdNumbersFromAReceiverAreClampedAndNeverTrap() async throws {
        let (gateway, simulator) = try await makeGateway()
        try await gateway.cast(CastRequest(url: "http://media.test/a.mp4", title: "A"))
        let injected = await simulator.control(#"inject receiver {"type":"RECEIVER_STATUS","requestId":0,"status":{"volume":{"level":1e18,"muted":false}}}"#)
        XCTAssertEqual(injected, "ok")
        let clampedVolume = await eventually { await gateway.state.volume == 1 }
        let state = await gateway.state
        XCTAssertTrue(clampedVolume, "volume 1e18 must be clamped to 1, got \(String(describing: state.volume))")
        let line = StatusLine.render(state, now: 0)
        XCTAssertTrue(line.hasSuffix("vol 100%"), line)
        XCTAssertTrue(StatusLine.json(state, now: 0).contains(#""volume":100"#))
        await gateway.stop()
    }

    func testAbsurdMediaStatusIsClampedWhereItEnters() throws {
        let json = try JSONValue(parsing: #"{"mediaSessionId":1,"playerState":"PLAYING","currentTime":1e19,"playbackRate":1e300,"volume":{"level":7.5},"media":{"contentId":"x","duration":-10}}"#)
        let status = try XCTUnwrap(MediaStatus(json: json))
        XCTAssertEqual(status.currentTime, CastLimits.positions.upperBound)
        XCTAssertEqual(status.playbackRate, 2)
        XCTAssertEqual(status.volume.level, 1)
        XCTAssertEqual(status.media?.duration, 0)
        let huge = try XCTUnwrap(MediaStatus(json: try JSONValue(parsing: #"{"mediaSessionId":1,"playerState":"PAUSED","currentTime":-5,"media":{"contentId":"x","duration":1e19}}"#)))
        XCTAssertEqual(huge.currentTime, 0)
        XCTAssertEqual(huge.media?.duration, CastLimits.positions.upperBound)
    }

    func testFormattingNeverTrapsAndShowsClampedValues() {
        var state = GatewayState()
        state.link = .connected
        state.appName = "Default Media Receiver"
        state.appID = "CC1AD845"
        state.player = .paused
        state.title = "x"
        for (volume, expected) in [(7.5, "vol 100%"), (-3, "vol 0%"), (1e300, "vol 100%"), (Double.nan, "vol 0%"), (-.infinity, "vol 0%")] {
            state.volume = volume
            XCTAssertTrue(StatusLine.render(state, now: 0).hasSuffix(expected), "\(volume): \(StatusLine.render(state, now: 0))")
            _ = StatusLine.json(state, now: 0)
            _ = StatusLine.summaryKey(state)
        }
        state.position = 12
        state.duration = -10
        XCTAssertTrue(StatusLine.render(state, now: 0).contains(" 00:12 "), "a negative duration is not shown: \(StatusLine.render(state, now: 0))")
        for value in [1e19, 1e300, Double.infinity, -.infinity, .nan, -1] {
            XCTAssertFalse(StatusLine.clock(value).isEmpty)
        }
        XCTAssertEqual(StatusLine.clock(1e300), "8760:00:00")
        XCTAssertEqual(Duration.seconds(fractional: 1e300), Duration.longest)
        XCTAssertEqual(Duration.seconds(fractional: .nan), .zero)
        XCTAssertEqual(Duration.longest.secondsText, "1000000000.0 s")
    }

    func testHugeNumbersTypedAtTheConsoleAreRejectedNotTrapped() async throws {
        XCTAssertNil(GatewayCommand.parseSeek("1e300"))
        XCTAssertNil(GatewayCommand.parseSeek("+1e300"))
        XCTAssertNil(GatewayCommand.parseSeek("99999999:00"))
        XCTAssertNil(Action(name: "seek+1e300"))
        // A name is formatted without trapping, whatever the number.
        XCTAssertEqual(Action.seekBy(1e300).name, "seek+1e+300")
        XCTAssertEqual(Action.seekTo(90).name, "seek=90")
        let (gateway, _) = try await makeGateway()
        let interpreter = CommandInterpreter(gateway: gateway, version: "1")
        let reply = await interpreter.run("seek 1e300")
        XCTAssertEqual(reply.first?.hasPrefix("error: usage: seek"), true, "\(reply)")
        await gateway.stop()
    }

    func testStringsFromTheNetworkCannotForgeLinesOrPaintTheTerminal() async throws {
        let (gateway, simulator) = try await makeGateway()
        let forged = "x\\nFORGED 12:00:00.000Z error main: fake\\u001b[2J\\u009b"
        try await gateway.cast(CastRequest(url: "http://media.test/a.mp4", title: "A"))
        let long = String(repeating: "y", count: 60_000)
        let hostile = #"inject media {"type":"MEDIA_STATUS","requestId":0,"status":[{"mediaSessionId":1,"playerState":"PLAYING","currentTime":1,"media":{"contentId":"x","metadata":{"metadataType":0,"title":"\#(forged)","subtitle":"\#(long)"}}}]}"#
        // The simulator's own status (the answer to joining) may overtake one
        // injection: a hostile receiver repeats itself, and the state it made is checked.
        var state = await gateway.state
        let arrived = await eventually {
            _ = await simulator.control(hostile)
            state = await gateway.state
            return state.title?.contains("FORGED") == true
        }
        XCTAssertTrue(arrived, "\(String(describing: state.title))")
        for text in [state.title ?? "", StatusLine.render(state, now: 0), state.subtitle ?? ""] {
            XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, text.debugDescription)
        }
        XCTAssertTrue(state.title?.contains(#"x\nFORGED"#) == true, state.title ?? "")
        XCTAssertTrue(state.title?.contains(#"\x1b[2J"#) == true, state.title ?? "")
        XCTAssertLessThan(state.subtitle?.count ?? .max, 300, "a 60 KB subtitle is capped")
        await gateway.stop()
    }

    func testLogLinesEscapeControlCharactersAndAreCapped() {
        let lines = Mutex<[String]>([])
        Logger.setSink { _, text in lines.withLock { $0.append(text) } }
        defer { Logger.setSink(nil) }
        let logger = Logger(label: "test")
        logger.error("title \"x\nFORGED error main: fake\u{1B}[2J\u{9B}\"")
        logger.error(String(repeating: "z", count: 60_000))
        let logged = lines.withLock { $0 }
        XCTAssertEqual(logged.first, #"test: title "x\nFORGED error main: fake\x1b[2J\u{9b}""#)
        XCTAssertLessThan(logged.last?.utf8.count ?? .max, Logger.maximumMessageLength + 100)
        XCTAssertTrue(logged.last?.hasSuffix("(57952 more bytes)") == true, logged.last?.suffix(40).description ?? "")
    }

    func testAStatusOnlyConsoleShowsButChangesNothing() async throws {
        let (gateway, simulator) = try await makeGateway()
        let interpreter = CommandInterpreter(gateway: gateway, version: "1")
        for line in ["pause", "vol 100", "cast http://x/y.mp4", "creds hunter2", "key KEY_PLAY", "log trace", "use Kitchen",
                     "playlist next", "playlist stop", "playlist reload", "playlist play 2", "checkout"] {
            let reply = await interpreter.runReadOnly(line)
            XCTAssertEqual(reply, ["error: this console only shows status ([console] mode = status-only)"], line)
        }
        let status = await interpreter.runReadOnly("status")
        XCTAssertTrue(status.first?.hasPrefix("* ") ?? false, "\(status)")
        let version = await interpreter.runReadOnly("version")
        XCTAssertEqual(version, ["cast-gateway 1"])
        // Showing the kiosk's state is allowed (without a kiosk it says so, and is not refused as a change).
        let playlist = await interpreter.runReadOnly("playlist")
        XCTAssertNotEqual(playlist, ["error: this console only shows status ([console] mode = status-only)"])
        XCTAssertFalse(playlist.isEmpty)
        let summary = await simulator.statusSummary
        XCTAssertTrue(summary.contains("app=none"), "nothing was launched: \(summary)")
        await gateway.stop()
    }
}
