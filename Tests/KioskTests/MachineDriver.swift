import GatewayCore
import GatewayModel
import SystemSupport
import TestSupport
import XCTest
@testable import Kiosk

/// Drives a `KioskMachine` alone: no receiver, no actor, no I/O. Time is a
/// manual clock; the driver keeps the machine's one timer and fires it when
/// the clock reaches it, as `KioskPlayer` does.
final class MachineDriver {
    static let castApp = "CC1AD845"
    let clock = ManualTimeSource()
    let wallClock: ManualWallClock
    var machine: KioskMachine
    /// Every effect so far, in order.
    private(set) var effects: [KioskEffect] = []
    private(set) var armed: (id: Int, deadline: Duration)?
    /// The receiver's media session counter.
    private var nextSession = 100

    init(items: [PlaylistItem], hour: Int = 12, minute: Int = 0, castAppID: String = MachineDriver.castApp,
         _ adjust: (inout KioskSettings) -> Void = { _ in }) {
        var settings = KioskSettings()
        settings.isEnabled = true
        settings.source = .playlist("/etc/cast-gateway/lobby.m3u")
        settings.stateDirectory = "/var/lib/cast-gateway"
        adjust(&settings)
        wallClock = ManualWallClock(clock: clock, hour: hour, minute: minute)
        machine = KioskMachine(configuration: KioskConfiguration(settings: settings, castAppID: castAppID), generator: SeededGenerator(seed: 1))
        playlist = Playlist(items: items, origin: "/etc/cast-gateway/lobby.m3u")
    }

    private let playlist: Playlist

    var instant: KioskInstant { KioskInstant(now: clock.now, secondOfDay: wallClock.secondOfDay) }
    var mode: KioskState.Mode { machine.state.mode }
    var status: [String] { machine.status(at: instant, saveProblem: nil) }

    @discardableResult
    func send(_ event: KioskEvent) -> [KioskEffect] {
        let new = machine.handle(event, at: instant)
        for effect in new {
            switch effect {
            case .armTimer(let id, let deadline): armed = (id, deadline)
            case .cancelTimer(let id): if armed?.id == id { armed = nil }
            default: break
            }
        }
        effects += new
        return new
    }

    @discardableResult
    func start(saved: KioskSavedState? = nil, playlist: Result<Playlist, PlaylistError>? = nil) -> [KioskEffect] {
        send(.started(KioskStartup(playlist: playlist ?? .success(self.playlist), saved: saved, castAppID: machine.castAppID)))
    }

    /// Moves the clock on by `seconds`, stopping at each deadline the machine
    /// armed on the way to fire its timer there, as the player's timer task would.
    func advance(seconds: Int) async {
        let target = clock.now + .seconds(seconds)
        var firings = 0
        while let armed, armed.deadline <= target {
            firings += 1
            // A timer that fires without moving on would spin the player's actor: a failure, not a hang.
            guard firings <= 10_000 else { return XCTFail("the timer fires again and again at \(armed.deadline): \(mode)") }
            if armed.deadline > clock.now { await clock.advance(by: armed.deadline - clock.now, step: armed.deadline - clock.now) }
            self.armed = nil
            send(.timerFired(id: armed.id))
        }
        if target > clock.now { await clock.advance(by: target - clock.now, step: target - clock.now) }
    }

    // MARK: Snapshots

    /// The receiver as the gateway reports it; `position` is where it is now.
    func screen(app: String? = nil, name: String? = nil, media: String? = nil, session: Int? = nil,
                player: GatewayState.Player = .none, position: Double? = nil, duration: Double? = nil,
                mediaKnown: Bool = true, idleReason: String? = nil, link: GatewayState.Link = .connected) -> GatewayState {
        var state = GatewayState()
        state.link = link
        state.appID = app
        state.appName = name ?? app.map { $0 == MachineDriver.castApp ? "Default Media Receiver" : "App \($0)" }
        state.contentID = media
        state.mediaSessionID = session
        state.player = player
        state.position = position
        state.positionTimestamp = clock.now.seconds
        state.duration = duration
        state.mediaKnown = app != nil && mediaKnown
        state.idleReason = idleReason
        return state
    }

    @discardableResult
    func show(_ state: GatewayState) -> [KioskEffect] {
        send(.snapshot(state))
    }

    /// The idle screen (no app).
    @discardableResult
    func showIdleScreen() -> [KioskEffect] {
        show(screen())
    }

    // MARK: Effects

    var loads: [(id: Int, source: String, startTime: Double)] {
        effects.compactMap { if case .load(let id, let item, let start) = $0 { return (id, item.source, start) } else { return nil } }
    }

    var saves: [KioskSavedState] {
        effects.compactMap { if case .save(let state) = $0 { return state } else { return nil } }
    }

    func logs(_ text: String) -> [String] {
        effects.compactMap { if case .log(_, let line) = $0, line.contains(text) { return line } else { return nil } }
    }

    /// The operation in flight's id.
    var operationID: Int? {
        switch machine.state.operation {
        case .loading(let id, _, _, _, _, _), .launching(let id, _, _), .recognising(let id, _, _, _): id
        case nil: nil
        }
    }

    /// The LOAD in flight is answered: the receiver plays it (a snapshot follows, as the gateway's would).
    @discardableResult
    func loadSucceeds(duration: Double? = 600, file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard case .loading(let id, _, let item, _, _, _)? = machine.state.operation else {
            XCTFail("no LOAD in flight: \(mode)", file: file, line: line)
            return nil
        }
        let url = item.source
        let start = loads.last?.startTime ?? 0
        nextSession += 1
        let playing = screen(app: machine.castAppID, media: url, session: nextSession, player: .playing, position: start, duration: duration)
        send(.loaded(id: id, .loaded(url: url, state: playing)))
        show(playing)
        return url
    }

    func loadFails(_ outcome: KioskLoadOutcome, file: StaticString = #filePath, line: UInt = #line) {
        guard let id = operationID else { return XCTFail("no LOAD in flight: \(mode)", file: file, line: line) }
        send(.loaded(id: id, outcome))
    }

    /// What plays now as the receiver would report it (the kiosk's current item, at its position).
    func playingNow(player: GatewayState.Player = .playing, idleReason: String? = nil, duration: Double? = 600) -> GatewayState {
        guard case .playing(let playing) = mode else { return screen(app: machine.castAppID) }
        let status = machine.state.latest.contentID == playing.contentID ? machine.state.latest : playing.lastStatus
        let position = status?.position(at: clock.now.seconds)
        return screen(app: machine.castAppID, media: playing.contentID, session: playing.sessionID, player: player,
                      position: position, duration: duration, idleReason: idleReason)
    }
}

extension PlaylistItem {
    static func url(_ url: String, title: String? = nil, duration: Double? = nil) -> PlaylistItem {
        PlaylistItem(location: .url(url), title: title, duration: duration)
    }

    static func local(_ path: String) -> PlaylistItem {
        PlaylistItem(location: .localPath(path))
    }
}
