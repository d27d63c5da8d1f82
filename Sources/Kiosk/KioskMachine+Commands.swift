import GatewayCore
import GatewayModel

extension KioskMachine {
    mutating func run(_ command: KioskCommand) {
        switch command {
        case .startLoop: startLoop()
        case .stopLoop: stopLoop()
        case .skip(let offset): skip(by: offset)
        case .play(let item): play(item: item)
        case .reload(let fresh): reload(fresh)
        case .checkout: beginCheckout()
        case .key(let action):
            // `start = key`: a play key starts the loop.
            guard settings.start == .key, case .waiting = state.mode, !state.loopRequested else { return }
            guard let action, KioskMachine.loopStartingActions.contains(action) else { return }
            log(.notice, "\(action.name) pressed: starting the loop")
            startLoop()
        }
    }

    /// The keys that start the loop when `start = key`.
    static let loopStartingActions: [Action] = [.play, .toggle, .launchApp]

    /// Front-desk reset, first half: the loop stands still while the player
    /// stops the app on the TV, forgets typed credentials and resets the volume.
    private mutating func beginCheckout() {
        state.epoch += 1
        state.mode = .waiting("checkout")
        emit(.clearGuest(volume: settings.volume))
    }

    /// The second half: the loop restarts from the first item (`start = boot`; otherwise it waits as at boot).
    mutating func finishCheckout(done steps: [String], failures: [KioskProblem]) {
        var done = steps
        state.epoch += 1
        state.playlist.rewind(shuffle: settings.shuffle, using: &state.generator)
        state.pendingStart = 0
        state.resumeFrom = nil
        state.startupPending = false
        state.startupLookUntil = nil
        state.consecutiveFailures = 0
        state.backoff.reset()
        if state.lastProblem != nil {
            state.lastProblem = nil
            emit(.reportProblem(nil))
        }
        state.loopRequested = settings.start == .boot
        if !scheduleIsOpen {
            state.mode = .closed
            done.append("outside the schedule: the loop starts in the next window")
        } else if state.loopRequested {
            beginLoop(resuming: false)
            done.append(state.playlist.isEmpty ? "welcome app restarted" : "loop restarted from item 1")
        } else {
            state.mode = .waiting(settings.start == .key ? "waiting for a play key" : "waiting for 'playlist start'")
            done.append("loop rewound to item 1, waiting (start = \(settings.start.rawValue))")
        }
        saveNow(force: true, position: 0)
        log(.notice, "checkout: \(done.joined(separator: ", "))")
        emit(.reply(KioskReply(["ok: checkout: " + done.joined(separator: ", ")], problems: failures)))
        drive()
    }

    /// A playlist read afresh; the current item carries on when it is still listed.
    private mutating func reload(_ fresh: Playlist) {
        let old = state.playlist
        // No closure over `old` here: Swift 6.3's optimizer (release, with the
        // fuzzer's instrumentation) failed its ownership check on that form.
        var currentSource = old.current?.source
        if let index = playingIndex { currentSource = old.items[index].source }
        state.playlist = fresh
        state.playlist.rewind(shuffle: settings.shuffle, using: &state.generator)
        var note = "from the first item"
        if let currentSource, let index = state.playlist.index(ofSource: currentSource) {
            state.playlist.select(itemIndex: index)
            if case .playing(var playing) = state.mode {
                playing.itemIndex = index
                state.mode = .playing(playing)
            }
            note = "item \(index + 1) carries on"
        } else {
            state.pendingStart = 0
            switch state.mode {
            case .playing, .loading, .backingOff:
                state.epoch += 1
                state.mode = .loading(attempt: 1, notBefore: nil)
            case .welcome where old.isEmpty:
                state.epoch += 1
                state.mode = .loading(attempt: 1, notBefore: nil)
            default:
                break
            }
        }
        if state.lastProblem != nil || state.latest.kioskProblem != nil {
            state.lastProblem = nil
            state.consecutiveFailures = 0
            state.backoff.reset()
            emit(.reportProblem(nil))
        }
        log(.notice, "playlist reloaded: \(state.playlist.count) items from \(state.playlist.origin); \(note)")
        emit(.reply(["ok: playlist reloaded: \(state.playlist.count) items, \(note)"]))
        drive()
    }

    private mutating func startLoop() {
        state.loopRequested = true
        guard state.hasStarted else {
            // The playlist is not read yet: `.started` begins the loop.
            emit(.reply(["ok: the loop starts once the kiosk has started"]))
            return
        }
        switch state.mode {
        case .closed:
            emit(.reply(["ok: the loop starts in the next schedule window"]))
        case .playing, .loading, .welcome, .backingOff:
            emit(.reply(["ok: the loop is already running"]))
        case .guest:
            emit(.reply(["ok: a guest has the screen; the loop returns when they are done"]))
        case .waiting:
            beginLoop(resuming: state.resumeFrom != nil)
            emit(.reply(["ok: loop started"]))
            drive()
        }
    }

    private mutating func stopLoop() {
        state.loopRequested = false
        let showing: Bool = switch state.mode {
        case .playing, .loading, .welcome, .backingOff: true
        case .waiting, .closed, .guest: false
        }
        if case .playing(let playing) = state.mode { holdPosition(of: playing) }
        state.epoch += 1
        state.mode = .waiting("stopped by 'playlist stop'")
        rescheduleTimer()
        emit(.reply(["ok: loop stopped ('playlist start' resumes it)"]))
        if showing, let appID = state.latest.appID, isOwnApp(appID) {
            emit(.stopApp(failsCommand: true))
        }
    }

    private mutating func skip(by offset: Int) {
        guard !state.playlist.isEmpty else { return emit(.refuse(GatewayError(.badArgument, "no playlist to skip in"))) }
        guard mayChangeItem() else { return }
        if offset < 0 {
            state.playlist.previous()
        } else {
            state.playlist.advance(loop: true, shuffle: settings.shuffle, using: &state.generator)
        }
        loadChosenItem()
    }

    /// `playlist play N`: the loop goes on from item N.
    private mutating func play(item: Int) {
        guard !state.playlist.isEmpty else { return emit(.refuse(GatewayError(.badArgument, "no playlist to play from"))) }
        guard (1...state.playlist.count).contains(item) else {
            return emit(.refuse(GatewayError(.badArgument, "no item \(item): the playlist has \(state.playlist.count) (see 'playlist')")))
        }
        guard mayChangeItem() else { return }
        state.playlist.select(itemIndex: item - 1)
        loadChosenItem()
    }

    /// Whether a command may change the item now; refuses it when not.
    private mutating func mayChangeItem() -> Bool {
        switch state.mode {
        case .closed: emit(.refuse(GatewayError(.unavailable, "outside the schedule"))); return false
        case .guest: emit(.refuse(GatewayError(.unavailable, "a guest has the screen"))); return false
        default: return true
        }
    }

    /// Loads the playlist's current item from its start, and says which it is.
    private mutating func loadChosenItem() {
        state.epoch += 1
        state.pendingStart = 0
        state.loopRequested = true
        state.mode = .loading(attempt: 1, notBefore: nil)
        emit(.reply(["ok: " + (state.playlist.currentIndex.map { "item \($0 + 1)/\(state.playlist.count)" } ?? "")]))
        drive()
    }
}
