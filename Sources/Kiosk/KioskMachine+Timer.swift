import GatewayModel

extension KioskMachine {
    /// The earliest moment something is due: a slide's end, a save, a retry,
    /// the end of a backoff or of the welcome app, a guest's idle limit, a
    /// schedule boundary (looked at least every minute, as the wall clock may jump).
    func nextDeadline() -> Duration? {
        var due: [Duration] = []
        switch state.mode {
        case .loading(_, let notBefore):
            // Only what a firing can act on: an operation's outcome, or the link coming back, drives by itself
            // (a past deadline armed meanwhile would fire again and again).
            guard state.operation == nil, state.latest.link == .connected else { break }
            if let notBefore { due.append(notBefore) } else if let look = state.startupLookUntil { due.append(look) }
        case .playing(let playing):
            if let ends = playing.imageEnds { due.append(ends) }
            if let save = state.nextSave { due.append(save) }
        case .welcome(let until?, launched: true):
            due.append(until)
        case .guest(let guest):
            if let idle = guest.idleSince, settings.guestIdleMinutes > 0 {
                due.append(idle + .seconds(fractional: settings.guestIdleMinutes * 60))
            }
        case .backingOff(let until):
            due.append(until)
        case .waiting, .closed, .welcome:
            break
        }
        if !settings.schedule.windows.isEmpty {
            let seconds = settings.schedule.secondsUntilChange(fromSecondOfDay: secondOfDay) ?? 60
            due.append(now + .seconds(min(max(seconds, 1), 60)))
        }
        return due.min()
    }

    /// Keeps the one timer at the next deadline: armed anew only when the deadline moves.
    mutating func rescheduleTimer() {
        if case .playing = state.mode {
            if state.nextSave == nil { state.nextSave = now + KioskMachine.saveInterval }
        } else {
            state.nextSave = nil
        }
        guard let deadline = nextDeadline() else {
            if let timer = state.timer { emit(.cancelTimer(id: timer.id)) }
            state.timer = nil
            return
        }
        if let timer = state.timer, timer.deadline == deadline { return }
        state.nextTimerID += 1
        state.timer = (state.nextTimerID, deadline)
        emit(.armTimer(id: state.nextTimerID, deadline: deadline))
    }

    mutating func timerFired(_ id: Int) {
        guard state.timer?.id == id else { return }
        state.timer = nil
        if !settings.schedule.windows.isEmpty {
            let open = scheduleIsOpen
            if !open, state.mode != .closed {
                closeForSchedule()
            } else if open, state.mode == .closed {
                openForSchedule()
            }
        }
        switch state.mode {
        case .loading:
            drive()
        case .playing(let playing):
            if let ends = playing.imageEnds, ends <= now {
                log(.info, "slide \(playing.itemIndex + 1)/\(state.playlist.count) shown")
                itemIsHealthy()
                advance()
            } else if let save = state.nextSave, save <= now {
                saveNow(force: false)
                state.nextSave = now + KioskMachine.saveInterval
            }
        case .welcome(let until?, launched: true) where until <= now:
            state.epoch += 1
            state.mode = .loading(attempt: 1, notBefore: nil)
            drive()
        case .guest(let guest):
            if let idle = guest.idleSince, settings.guestIdleMinutes > 0,
               idle + .seconds(fractional: settings.guestIdleMinutes * 60) <= now {
                returnFromGuest("nothing played for \(KioskMachine.minutes(settings.guestIdleMinutes)) min")
            }
        case .backingOff(let until) where until <= now:
            state.epoch += 1
            state.mode = .loading(attempt: 1, notBefore: nil)
            drive()
        default:
            break
        }
        rescheduleTimer()
    }

    // MARK: Saving

    /// Saves the current item and position: at once when `force` (every
    /// change), else only when the position moved (the periodic save).
    mutating func saveNow(force: Bool, position: Double? = nil) {
        let playlist = state.playlist
        guard state.savesEnabled, let index = playingIndex ?? playlist.currentIndex, playlist.items.indices.contains(index) else { return }
        let item = playlist.items[index]
        var seconds = position ?? state.pendingStart
        if position == nil, case .playing(let playing) = state.mode, item.kind != .image {
            seconds = self.position(of: playing) ?? state.pendingStart
        }
        var duration = item.kind == .image ? nil : item.duration
        if case .playing(let playing) = state.mode, item.kind != .image {
            let status = state.latest.contentID == playing.contentID ? state.latest : playing.lastStatus
            duration = KioskSavedState.validDuration(status?.duration) ?? duration
        }
        if item.kind == .image { seconds = 0 }
        let saved = KioskSavedState(itemIndex: index, source: item.source,
                                    position: KioskMachine.resumablePosition(seconds, duration: duration), duration: duration)
        guard force || saved != state.lastSaved else { return }
        state.lastSaved = saved
        emit(.save(saved))
    }

    /// Where `playing` has got to, from the newest snapshot that shows it.
    func position(of playing: KioskState.Playing) -> Double? {
        let status = state.latest.contentID == playing.contentID ? state.latest : playing.lastStatus
        return status?.position(at: now.seconds)
    }

    /// Keeps where `playing` stopped, for the LOAD that resumes it (a slide starts over).
    mutating func holdPosition(of playing: KioskState.Playing) {
        let items = state.playlist.items
        let isImage = items.indices.contains(playing.itemIndex) && items[playing.itemIndex].kind == .image
        state.pendingStart = isImage ? 0 : (position(of: playing) ?? 0)
        saveNow(force: true, position: state.pendingStart)
    }

    // MARK: Schedule

    mutating func closeForSchedule() {
        state.epoch += 1
        let wasGuest: Bool
        if case .guest = state.mode { wasGuest = true } else { wasGuest = false }
        let wasShowing: Bool = switch state.mode {
        case .playing, .loading, .welcome, .backingOff: true
        case .waiting, .closed, .guest: false
        }
        if case .playing(let playing) = state.mode { holdPosition(of: playing) }
        state.mode = .closed
        if wasGuest {
            log(.notice, "outside the schedule: a guest is casting, so the screen is left alone; the loop returns in the next window")
            return
        }
        log(.notice, "outside the schedule: the loop stops")
        guard wasShowing else { return }
        if let appID = state.latest.appID, isOwnApp(appID) { emit(.stopApp(failsCommand: false)) }
        emit(.tvStandby)
    }

    mutating func openForSchedule() {
        state.epoch += 1
        log(.notice, "inside the schedule again")
        guard state.loopRequested else {
            state.mode = .waiting(settings.start == .never ? "waiting for 'playlist start'" : "waiting for a play key")
            return
        }
        state.mode = state.playlist.isEmpty
            ? (settings.appID == nil ? .waiting("nothing to play") : .welcome(until: nil, launched: false))
            : .loading(attempt: 1, notBefore: nil)
        drive()
    }
}
