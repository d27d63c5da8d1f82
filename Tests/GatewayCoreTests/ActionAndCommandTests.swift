import Commands
import GatewayModel
@testable import Interpreter
import SystemSupport
import XCTest
@testable import GatewayCore

final class ActionAndCommandTests: XCTestCase {
    func testEveryActionNameRoundTrips() {
        let actions: [Action] = [
            .play, .pause, .toggle, .stop, .next, .previous, .seekBy(30), .seekBy(-10), .seekTo(90), .volumeUp(0.05),
            .volumeDown(0.05), .volumeUp(0.1), .setVolume(0.4), .toggleMute, .cycleSubtitles, .subtitlesOff, .cycleAudioTrack,
            .setPlaybackRate(1.5), .launchApp, .stopApp, .preset(0), .preset(9), .selectNextDevice, .tvPowerOn, .tvStandby, .tvSelectInput(0x2000), .tvSelectInput(0x2100), .none,
        ]
        for action in actions {
            XCTAssertEqual(Action(name: action.name), action, action.name)
        }
        for bad in ["", "tv-input=0", "tv-input=16", "tv-input=0.0.0.0", "tv-input=1.0.0", "seek+", "seek+0", "volume=101", "preset-10", "preset-1.5", "rate=3", "PLAY", "volume-up:0"] {
            XCTAssertNil(Action(name: bad), bad)
        }
    }

    func testGatewayCommandsParse() throws {
        let cases: [(String, GatewayCommand)] = [
            ("play", .action(.play)), ("  PAUSE ", .action(.pause)), ("toggle", .action(.toggle)), ("prev", .action(.previous)),
            ("seek +30", .action(.seekBy(30))), ("seek -10", .action(.seekBy(-10))), ("seek 1:23", .action(.seekTo(83))),
            ("seek 1:02:03", .action(.seekTo(3723))), ("seek 90", .action(.seekTo(90))),
            ("vol 40", .action(.setVolume(0.4))), ("vol +5", .action(.volumeUp(0.05))), ("vol -10", .action(.volumeDown(0.1))),
            ("mute", .action(.toggleMute)), ("subs next", .action(.cycleSubtitles)), ("subs off", .action(.subtitlesOff)),
            ("subs 2", .subtitleTrack(2)), ("cast http://x/v.mp4 Big Buck Bunny", .cast(url: "http://x/v.mp4", title: "Big Buck Bunny")),
            ("queue http://x/2.mp4", .queue(url: "http://x/2.mp4")), ("launch ABCD1234 --android", .launch(appID: "ABCD1234", androidReceiver: true)),
            ("creds abc def", .credentials("abc def")), ("creds clear", .credentials(nil)), ("log debug", .logLevel(.debug)),
            ("json on", .json(true)), ("use Living Room", .use("Living Room")), ("status", .status), ("version", .version),
            ("devices", .devices(matching: nil)), ("devices  Room 4", .devices(matching: "Room 4")),
            ("tv on", .action(.tvPowerOn)), ("tv standby", .action(.tvStandby)), ("tv input 2", .action(.tvSelectInput(0x2000))),
            ("tv input 2.1.0.0", .action(.tvSelectInput(0x2100))),
        ]
        for (line, expected) in cases {
            XCTAssertEqual(try GatewayCommand(parsing: line.trimmingSpaces()), expected, line)
        }
    }

    func testConsoleErrorsExplainTheExpectedForm() {
        let cases: [(String, String)] = [
            ("dance", "unknown command 'dance' (try 'help')"), ("seek", "usage: seek"), ("seek 1:75", "usage: seek"),
            ("vol 101", "usage: vol"), ("vol loud", "usage: vol"), ("play now", "'play' takes no arguments"),
            ("cast notaurl", "usage: cast"), ("launch", "usage: launch"), ("log shout", "usage: log"), ("subs maybe", "usage: subs"),
            ("tv", "usage: tv on"), ("tv input 0", "usage: tv input N"), ("tv input sixteen", "usage: tv input N"), ("tv dance", "usage: tv on"),
        ]
        for (line, fragment) in cases {
            XCTAssertThrowsError(try GatewayCommand(parsing: line), line) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(line): \(error)")
            }
        }
    }

    /// The kiosk answers typed: the steps that failed are problems, a refusal is a
    /// failure with its code, and a line is only ever a line (no text is judged).
    func testKioskAnswersBecomeTypedResults() async {
        let gateway = Gateway(settings: GatewaySettings(), connector: { _, _ in throw CancellationError() })
        let kiosk = ScriptedKiosk()
        let interpreter = CommandInterpreter(gateway: gateway, version: "1", kiosk: kiosk)
        let checkout = await interpreter.execute(.checkout)
        XCTAssertEqual(checkout, .success(CommandReply(["ok: checkout: stopped App 0F0F0F0F"], problems: ["could not set the volume to 25%: x"])))
        XCTAssertFalse(checkout.succeededEntirely)
        let refused = await interpreter.execute(.playlist(.play(9)))
        XCTAssertEqual(refused, .failure(CommandError(.badArgument, "no item 9: the playlist has 3 (see 'playlist')")))
        let text = await interpreter.execute(.playlist(.next))
        XCTAssertEqual(text, .success(CommandReply(["error: only a title that reads like an error"])))
        XCTAssertTrue(text.succeededEntirely, "a line that starts with 'error:' is not a failure")
    }

    func testStatusLine() {
        var state = GatewayState()
        state.link = .connected
        state.appName = "Default Media Receiver"
        state.player = .playing
        state.title = "Big Buck Bunny"
        state.position = 80
        state.positionTimestamp = 100
        state.duration = 596
        state.volume = 0.4
        XCTAssertEqual(StatusLine.render(state, now: 103.5), #"* PLAYING "Big Buck Bunny" 01:23/09:56 vol 40%"#)
        state.player = .paused
        XCTAssertEqual(StatusLine.render(state, now: 200), #"* PAUSED "Big Buck Bunny" 01:20/09:56 vol 40%"#)
        state.muted = true
        state.duration = nil
        state.position = 3725
        XCTAssertEqual(StatusLine.render(state, now: 0), #"* PAUSED "Big Buck Bunny" 1:02:05 vol 40% muted"#)
        state.link = .reconnecting(retryInSeconds: 4)
        state.deviceName = "10.0.0.2:8009"
        state.lastError = .init(code: "disconnected", message: "heartbeat lost")
        XCTAssertEqual(StatusLine.render(state, now: 0), "* OFFLINE 10.0.0.2:8009 (retry in 4.0 s): heartbeat lost")
        XCTAssertNotEqual(StatusLine.summaryKey(state), StatusLine.summaryKey(GatewayState()))
    }

    func testCastRequestBuildsLoadWithGuessedTypeAndSubtitles() {
        var request = CastRequest(url: "http://h/path/movie.m3u8?token=1")
        request.subtitlesURL = "http://h/en.vtt"
        let load = request.loadRequest
        XCTAssertEqual(load.media.contentType, "application/x-mpegURL")
        XCTAssertEqual(load.media.metadata?.title, "movie.m3u8")
        XCTAssertEqual(load.media.tracks.first?.contentType, "text/vtt")
        XCTAssertEqual(load.activeTrackIDs, [1])
        XCTAssertEqual(CastRequest.guessContentType("http://h/a.MP3"), "audio/mpeg")
        XCTAssertEqual(CastRequest.guessContentType("http://h/unknown"), "video/mp4")
    }
}

/// A kiosk whose answers are fixed, for the interpreter's side of the seam.
private struct ScriptedKiosk: KioskControl {
    func checkout() async throws -> KioskReply {
        KioskReply(["ok: checkout: stopped App 0F0F0F0F"], problems: [KioskProblem(.volumeNotSet, "could not set the volume to 25%: x")])
    }
    func reloadPlaylist() async throws -> KioskReply { ["ok: playlist reloaded: 3 items, from the first item"] }
    func playlistStatus() async -> [String] { ["now: playing item 1/3"] }
    func startLoop() async throws -> KioskReply { ["ok: loop started"] }
    func stopLoop() async throws -> KioskReply { ["ok: loop stopped ('playlist start' resumes it)"] }
    func skip(by offset: Int) async throws -> KioskReply { ["error: only a title that reads like an error"] }
    func play(item: Int) async throws -> KioskReply {
        throw GatewayError(.badArgument, "no item \(item): the playlist has 3 (see 'playlist')")
    }
    func keyPressed(_ action: Action?) async {}
}

final class StatusAnnouncerTests: XCTestCase {
    func testAnUnreachableDeviceIsAnnouncedOnceNotOnEveryRetry() {
        var announcer = StatusAnnouncer()
        var state = GatewayState()
        state.deviceName = "tv:8009"
        state.deviceAddress = "tv:8009"
        state.link = .connecting
        XCTAssertEqual(announcer.announcement(for: state, now: 0), "* CONNECTING tv:8009")
        var offline = state
        offline.link = .reconnecting(retryInSeconds: 0.5)
        offline.lastError = GatewayState.Problem(code: "device-unavailable", message: "connection refused")
        XCTAssertEqual(announcer.announcement(for: offline, now: 0), "* OFFLINE tv:8009 (retry in 0.5 s): connection refused")
        for retry in [1.0, 2.0, 4.0, 8.0] {
            XCTAssertNil(announcer.announcement(for: state, now: 0), "a retry's CONNECTING is not news")
            offline.link = .reconnecting(retryInSeconds: retry)
            XCTAssertNil(announcer.announcement(for: offline, now: 0), "the same reason again is not news")
        }
        offline.lastError = GatewayState.Problem(code: "device-unavailable", message: "no route to host")
        XCTAssertNotNil(announcer.announcement(for: offline, now: 0), "a new reason is")
        var connected = state
        connected.link = .connected
        XCTAssertEqual(announcer.announcement(for: connected, now: 0), "* IDLE")
    }
}

final class TVStatusOutputTests: XCTestCase {
    func testStatusAndTheConsolesJSONShowTheTV() async {
        let gateway = Gateway(settings: GatewaySettings(), connector: { _, _ in throw CancellationError() })
        var tv = TVStatus()
        tv.connected = true
        tv.power = .on
        tv.castInput = 0x2000
        tv.activeSource = 0x2000
        await gateway.setTVStatus(tv)
        let lines = await CommandInterpreter(gateway: gateway, version: "1").run("status")
        XCTAssertTrue(lines.contains("  tv: on, showing HDMI 2 (the Chromecast)"), "\(lines)")
        let json = StatusLine.json(await gateway.state, now: 0)
        XCTAssertTrue(json.contains(#""tv":{"power":"on","input":"2.0.0.0","hdmi":2,"chromecast":true,"vendor":null,"vendorName":null,"name":null}"#), json)
        await gateway.setTVStatus(nil)
        let without = await CommandInterpreter(gateway: gateway, version: "1").run("status")
        XCTAssertFalse(without.contains { $0.hasPrefix("  tv:") }, "no CEC, no tv line")
    }
}
