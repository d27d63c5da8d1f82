import CastClient
import GatewayCore
import GatewayModel
import SystemSupport

/// The kiosk on the gateway: feeds `KioskMachine` the gateway's snapshots,
/// its timer, commands and the outcome of each effect, and carries out the
/// effects (LOADs and launches through the gateway, saves, the timer, log
/// lines). Every decision is the machine's; this actor holds only the
/// machine and the timer's task.
///
/// An effect that talks to the receiver is awaited here and its outcome fed
/// back before the event that asked for it is done, so a command returns
/// once its LOAD was answered. Meanwhile other events may enter (the actor
/// is reentrant); the machine starts no second operation before the first's
/// outcome and ignores an outcome a later decision overtook.
public actor KioskPlayer {
    let settings: KioskSettings
    let gateway: Gateway
    let locator: any MediaLocator
    let wallClock: any WallClock
    let store: KioskStateStore
    let clock: any TimeSource
    let logger = Logger(label: "kiosk")

    var machine: KioskMachine
    /// The one timer the machine armed.
    var timer: (id: Int, task: Task<Void, Never>)?

    public init(settings: KioskSettings, gateway: Gateway, locator: any MediaLocator = LocalFilesUnavailable(),
                wallClock: any WallClock = SystemWallClock(), generator: SeededGenerator = SeededGenerator()) {
        self.settings = settings
        self.gateway = gateway
        self.locator = locator
        self.wallClock = wallClock
        self.clock = gateway.timeSource
        store = KioskStateStore(path: settings.statePath)
        // The app id comes with `.started` (and `.reconfigured` on a reload).
        machine = KioskMachine(configuration: KioskConfiguration(settings: settings, castAppID: ""), generator: generator)
    }

    /// Plays until cancelled, then saves the position (a graceful stop).
    public func run() async {
        await start()
        for await state in gateway.states() {
            await handle(state)
        }
        await finish()
    }

    /// Reads the playlist, the saved state and the configured app id, and starts the machine (internal: tests drive it).
    func start() async {
        let playlist: Result<Playlist, PlaylistError>
        do {
            playlist = .success(try Playlist.load(settings.source))
        } catch {
            playlist = .failure(error)
        }
        let saved = await store.loadInBackground()
        let castAppID = await KioskPlayer.configuredCastAppID(of: gateway)
        await send(.started(KioskStartup(playlist: playlist, saved: saved, castAppID: castAppID)))
    }

    /// The gateway's `[cast] app-id`, read at start and on a config reload only.
    static func configuredCastAppID(of gateway: Gateway) async -> String {
        await gateway.settings.cast.appID
    }

    /// A gateway snapshot (internal: tests hand them over one by one).
    func handle(_ state: GatewayState) async {
        await send(.snapshot(state))
    }

    /// Stops the timer and saves the position (a graceful stop; internal: tests drive it).
    func finish() async {
        await send(.stopping)
        timer?.task.cancel()
        timer = nil
    }

    /// Drops the player as `kill -9` would: nothing more is saved (tests).
    func dropWithoutSaving() async {
        await send(.dropped)
    }

    /// A config reload: the app id may have changed, and the playlist file with it.
    func reloadConfiguration() async {
        await send(.reconfigured(castAppID: KioskPlayer.configuredCastAppID(of: gateway)))
        guard settings.source != .none else { return }
        _ = try? await reloadPlaylist()
    }

    var instant: KioskInstant {
        KioskInstant(now: clock.now, secondOfDay: wallClock.secondOfDay)
    }

    /// Feeds `event`, carries out its effects in order, then feeds their
    /// outcomes the same way; returns a command's answer, if one was given.
    @discardableResult
    func send(_ event: KioskEvent) async -> Result<KioskReply, any Error>? {
        var events = [event]
        var answer: Result<KioskReply, any Error>?
        while !events.isEmpty {
            let effects = machine.handle(events.removeFirst(), at: instant)
            for effect in effects {
                if let outcome = await perform(effect, answer: &answer) { events.append(outcome) }
            }
        }
        return answer
    }

    // The machine's helpers, under the names the tests use.
    static func fileName(_ path: String) -> String { KioskMachine.fileName(path) }

    static func isSameMedia(_ contentID: String, _ ours: String, local: Bool) -> Bool {
        KioskMachine.isSameMedia(contentID, ours, local: local)
    }

    static func isLinkProblem(_ error: any Error) -> Bool {
        if let error = error as? GatewayError { return error.code == .noDevice }
        if let error = error as? CastError {
            return [.notConnected, .disconnected, .deviceUnavailable, .cancelled].contains(error.code)
        }
        return false
    }
}
