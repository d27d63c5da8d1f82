import GatewayModel
import SystemSupport

extension KioskPlayer {
    /// Whether the schedule allows playing now (local time).
    var scheduleIsOpen: Bool {
        settings.schedule.isOpen(atSecondOfDay: wallClock.secondOfDay)
    }

    /// The earliest moment something is due: a slide's end, a save, a retry,
    /// the end of a backoff or of the welcome app, a guest's idle limit, a
    /// schedule boundary (looked at least every minute, as the wall clock may jump).
    func nextDeadline() -> Duration? {
        let now = clock.now
        var due: [Duration] = []
        switch mode {
        case .loading(_, let notBefore):
            if let notBefore { due.append(notBefore) } else if let look = startupLookUntil { due.append(look) }
        case .playing(let playing):
            if let ends = playing.imageEnds { due.append(ends) }
            if let save = nextSave { due.append(save) }
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
            let seconds = settings.schedule.secondsUntilChange(fromSecondOfDay: wallClock.secondOfDay) ?? 60
            due.append(now + .seconds(min(max(seconds, 1), 60)))
        }
        return due.min()
    }

    /// Sleeps until the next deadline on one timer task, replaced when the deadline moves.
    func rescheduleTimer() {
        if case .playing = mode {
            if nextSave == nil { nextSave = clock.now + KioskPlayer.saveInterval }
        } else {
            nextSave = nil
        }
        guard let deadline = nextDeadline() else {
            timer?.task.cancel()
            timer = nil
            return
        }
        if let timer, timer.deadline == deadline { return }
        timer?.task.cancel()
        nextTimerID += 1
        let id = nextTimerID, clock = self.clock, delay = deadline - clock.now
        // The player's one timer: cancelled when replaced or when the player stops.
        let task = Task {
            guard (try? await clock.sleep(for: delay)) != nil else { return }
            await self.wake(timer: id)
        }
        timer = (id, deadline, task)
    }

    func wake(timer id: Int) async {
        guard timer?.id == id else { return }
        timer = nil
        let now = clock.now
        if !settings.schedule.windows.isEmpty {
            let open = scheduleIsOpen
            if !open, mode != .closed {
                await closeForSchedule()
            } else if open, mode == .closed {
                await openForSchedule()
            }
        }
        switch mode {
        case .loading:
            await drive()
        case .playing(let playing):
            if let ends = playing.imageEnds, ends <= now {
                logger.info("slide \(playing.itemIndex + 1)/\(playlist.count) shown")
                await itemIsHealthy()
                await advance()
            } else if let save = nextSave, save <= now {
                saveNow(force: false)
                nextSave = now + KioskPlayer.saveInterval
            }
        case .welcome(let until?, launched: true) where until <= now:
            epoch += 1
            mode = .loading(attempt: 1, notBefore: nil)
            await drive()
        case .guest(let guest):
            if let idle = guest.idleSince, settings.guestIdleMinutes > 0,
               idle + .seconds(fractional: settings.guestIdleMinutes * 60) <= now {
                await returnFromGuest("nothing played for \(KioskPlayer.minutes(settings.guestIdleMinutes)) min")
            }
        case .backingOff(let until) where until <= now:
            epoch += 1
            mode = .loading(attempt: 1, notBefore: nil)
            await drive()
        default:
            break
        }
        rescheduleTimer()
    }

    /// Saves the current item and position: at once when `force` (every
    /// change), else only when the position moved (the periodic save).
    func saveNow(force: Bool, position: Double? = nil) {
        guard savesEnabled, let index = playingIndex ?? playlist.currentIndex, playlist.items.indices.contains(index) else { return }
        let item = playlist.items[index]
        var seconds = position ?? pendingStart
        if position == nil, case .playing(let playing) = mode, item.kind != .image {
            seconds = self.position(of: playing) ?? pendingStart
        }
        var duration = item.kind == .image ? nil : item.duration
        if case .playing(let playing) = mode, item.kind != .image {
            let status = latest.contentID == playing.contentID ? latest : playing.lastStatus
            duration = KioskSavedState.validDuration(status?.duration) ?? duration
        }
        if item.kind == .image { seconds = 0 }
        let state = KioskSavedState(itemIndex: index, source: item.source, position: KioskPlayer.resumablePosition(seconds, duration: duration),
                                    duration: duration)
        guard force || state != lastSaved else { return }
        lastSaved = state
        store.save(state)
    }

    /// Where `playing` has got to, from the newest snapshot that shows it.
    func position(of playing: Playing) -> Double? {
        let status = latest.contentID == playing.contentID ? latest : playing.lastStatus
        return status?.position(at: clock.now.seconds)
    }

    /// Keeps where `playing` stopped, for the LOAD that resumes it (a slide starts over).
    func holdPosition(of playing: Playing) {
        pendingStart = playlist.items[playing.itemIndex].kind == .image ? 0 : (position(of: playing) ?? 0)
        saveNow(force: true, position: pendingStart)
    }

    var playingIndex: Int? {
        if case .playing(let playing) = mode { return playing.itemIndex }
        return nil
    }

    // MARK: Schedule

    func closeForSchedule() async {
        epoch += 1
        let wasGuest: Bool
        if case .guest = mode { wasGuest = true } else { wasGuest = false }
        let wasShowing: Bool = switch mode {
        case .playing, .loading, .welcome, .backingOff: true
        case .waiting, .closed, .guest: false
        }
        if case .playing(let playing) = mode { holdPosition(of: playing) }
        mode = .closed
        if wasGuest {
            logger.notice("outside the schedule: a guest is casting, so the screen is left alone; the loop returns in the next window")
            return
        }
        logger.notice("outside the schedule: the loop stops")
        guard wasShowing else { return }
        if let appID = latest.appID, isOwnApp(appID) {
            do {
                try await gateway.perform(.stopApp)
            } catch {
                logger.info("could not stop the kiosk's app: \(error)")
            }
        }
        if await gateway.hasTVControl {
            do {
                try await gateway.perform(.tvStandby)
                logger.notice("TV standby (outside the schedule)")
            } catch {
                logger.warning("TV standby failed: \(error)")
            }
        } else if !standbyUnavailableLogged {
            standbyUnavailableLogged = true
            logger.notice("outside the schedule the TV would go to standby, but HDMI-CEC is not set up ([cec])")
        }
    }

    func openForSchedule() async {
        epoch += 1
        logger.notice("inside the schedule again")
        guard loopRequested else {
            mode = .waiting(settings.start == .never ? "waiting for 'playlist start'" : "waiting for a play key")
            return
        }
        mode = playlist.isEmpty
            ? (settings.appID == nil ? .waiting("nothing to play") : .welcome(until: nil, launched: false))
            : .loading(attempt: 1, notBefore: nil)
        await drive()
    }
}
