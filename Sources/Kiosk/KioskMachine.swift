import GatewayModel
import SystemSupport

/// The kiosk's logic as a pure reducer: an event (with the instant it came
/// at) changes the state and yields effects for `KioskPlayer` to carry out.
/// No I/O, no clock, no actor: tests feed it events and read its effects.
///
/// Plays the loop: one LOAD per item, the next one when the receiver reports
/// the item FINISHED (or a slide's time is up), the current item and position
/// saved so a power cut resumes it, guests left alone and the loop taken back
/// when they are done, the schedule kept.
struct KioskMachine: Sendable {
    /// LOAD tries per item before it is skipped.
    static let maximumAttempts = 2
    static let retryDelay = Duration.seconds(2)
    /// How often the position is saved while playing.
    static let saveInterval = Duration.seconds(5)
    /// How long a start waits, from the link's first connection, to read the
    /// media status of the app it finds on screen.
    static let startupLook = Duration.seconds(5)

    var configuration: KioskConfiguration
    var state: KioskState
    /// The instant of the event being handled.
    var now = Duration.zero
    var secondOfDay = 0
    /// The effects of the event being handled, in order.
    private var effects: [KioskEffect] = []

    init(configuration: KioskConfiguration, generator: SeededGenerator) {
        self.configuration = configuration
        state = KioskState(generator: generator)
    }

    var settings: KioskSettings { configuration.settings }
    var castAppID: String { configuration.castAppID }

    /// Handles `event`, which came at `instant`, and returns what to do, in order.
    mutating func handle(_ event: KioskEvent, at instant: KioskInstant) -> [KioskEffect] {
        now = instant.now
        secondOfDay = instant.secondOfDay
        switch event {
        case .started(let startup): started(startup)
        case .reconfigured(let appID): configuration.castAppID = appID
        case .snapshot(let snapshot): received(snapshot)
        case .timerFired(let id): timerFired(id)
        case .loaded(let id, let outcome): loaded(id, outcome)
        case .launched(let id, let outcome): launched(id, outcome)
        case .located(let id, let urls): located(id, urls)
        case .command(let command): run(command)
        case .guestCleared(let done, let failures): finishCheckout(done: done, failures: failures)
        case .tvControlMissing:
            if !state.standbyUnavailableLogged {
                state.standbyUnavailableLogged = true
                log(.notice, "outside the schedule the TV would go to standby, but HDMI-CEC is not set up ([cec])")
            }
        case .stopping: stopping()
        case .dropped: state.savesEnabled = false
        }
        showItems()
        let done = effects
        effects = []
        return done
    }

    mutating func emit(_ effect: KioskEffect) {
        effects.append(effect)
    }

    mutating func log(_ level: LogLevel, _ text: String) {
        effects.append(.log(level, text))
    }

    /// A fresh id for an operation or timer.
    mutating func operationID() -> Int {
        state.nextOperationID += 1
        return state.nextOperationID
    }

    // MARK: Start and stop

    private mutating func started(_ startup: KioskStartup) {
        configuration.castAppID = startup.castAppID
        switch startup.playlist {
        case .success(let playlist):
            state.playlist = playlist
            if settings.shuffle { state.playlist.rewind(shuffle: true, using: &state.generator) }
            if !playlist.isEmpty { log(.notice, "playlist \(playlist.origin): \(playlist.count) items") }
        case .failure(let error):
            log(.error, "the kiosk cannot play: \(error)")
            emit(.reportProblem("\(error)"))
        }
        state.resumeFrom = startup.saved
        state.startupLookUntil = nil
        // A play key or `playlist start` that came while starting is kept.
        state.loopRequested = settings.start == .boot || state.loopRequested
        state.hasStarted = true
        if !scheduleIsOpen {
            log(.notice, "outside the schedule (\(settings.schedule.windows.map(\.description).joined(separator: ", "))): waiting")
            state.mode = .closed
        } else if state.loopRequested {
            // The loop starts now: not over what a guest may have been casting before this start.
            state.startupPending = true
            beginLoop(resuming: true)
        } else {
            state.mode = .waiting(settings.start == .key ? "waiting for a play key" : "waiting for 'playlist start'")
        }
        rescheduleTimer()
    }

    /// Shows the gateway the playlist's items and the one playing, when that
    /// changed (after every event, whatever changed them), from the start on.
    /// A graceful stop leaves the items shown, none playing: a restart (a
    /// changed `[kiosk]`, the daemon's) does not take them from Home
    /// Assistant's select and give them back; without `[kiosk]` the daemon
    /// clears them (`KioskOff`).
    private mutating func showItems() {
        guard state.hasStarted else { return }
        var names = state.shownItems?.names ?? []
        // The same items share their storage: compared at once, named only when they changed.
        if state.shownItemsFrom != state.playlist.items {
            state.shownItemsFrom = state.playlist.items
            names = state.playlist.items.map(\.name)
        }
        let shown = KioskItems(names: names, playing: state.stopped ? nil : playingIndex)
        guard shown != state.shownItems else { return }
        state.shownItems = shown
        emit(.showItems(shown))
    }

    /// A graceful stop: the timer goes, the position is saved.
    private mutating func stopping() {
        state.stopped = true
        if let timer = state.timer {
            emit(.cancelTimer(id: timer.id))
            state.timer = nil
        }
        guard state.savesEnabled else { return }
        saveNow(force: true)
        emit(.flushSaves)
        emit(.reportProblem(nil))
    }

    // MARK: Helpers

    /// Whether the schedule allows playing now (local time).
    var scheduleIsOpen: Bool {
        settings.schedule.isOpen(atSecondOfDay: secondOfDay)
    }

    var playingIndex: Int? {
        if case .playing(let playing) = state.mode { return playing.itemIndex }
        return nil
    }

    func isOwnApp(_ appID: String) -> Bool {
        appID == castAppID || appID == settings.appID
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func minutes(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }

    /// A position a LOAD may start at: finite, from 0 to the item's length (a day when unknown).
    static func resumablePosition(_ seconds: Double, duration: Double?) -> Double {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return min(seconds, KioskSavedState.validDuration(duration) ?? KioskSavedState.maximumPosition)
    }
}
