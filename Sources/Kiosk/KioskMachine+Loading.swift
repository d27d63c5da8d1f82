import GatewayModel

extension KioskMachine {
    /// What a start's first look found on the receiver.
    enum StartupLook: Equatable {
        /// Not known yet: no LOAD until it is.
        case wait
        /// The mode changed (a guest, a command meanwhile): look at it again.
        case again
        /// Nothing to respect: load.
        case load
        /// The local items' URLs are asked for: `located` decides.
        case pending
    }

    /// Starts the loop at the current item (the saved one after boot).
    mutating func beginLoop(resuming: Bool) {
        state.epoch += 1
        state.pendingStart = 0
        guard !state.playlist.isEmpty else {
            state.mode = settings.appID == nil ? .waiting("nothing to play") : .welcome(until: nil, launched: false)
            return
        }
        if resuming, let saved = state.resumeFrom {
            let items = state.playlist.items
            let index = items.indices.contains(saved.itemIndex) && items[saved.itemIndex].source == saved.source
                ? saved.itemIndex : state.playlist.index(ofSource: saved.source)
            if let index {
                state.playlist.select(itemIndex: index)
                let item = items[index]
                state.pendingStart = item.kind == .image
                    ? 0 : KioskMachine.resumablePosition(saved.position, duration: saved.duration ?? item.duration)
                log(.notice, "resuming item \(index + 1)/\(state.playlist.count) at \(Int(state.pendingStart)) s")
            } else {
                log(.notice, "the saved item \(saved.source) is no longer in the playlist: starting from the first item")
            }
        }
        state.resumeFrom = nil
        state.mode = .loading(attempt: 1, notBefore: nil)
    }

    /// Does what the mode asks for while it can: starts one LOAD or launch
    /// (none while an operation is in flight; its outcome drives again).
    mutating func drive() {
        defer { rescheduleTimer() }
        guard state.operation == nil else { return }
        while state.latest.link == .connected {
            switch state.mode {
            case .loading(let attempt, let notBefore):
                if let notBefore, now < notBefore { break }
                if state.startupPending {
                    let look = lookAtStartup()
                    if look == .wait || look == .pending { break }  // learning what the receiver plays before loading over it
                    if look == .again { continue }
                }
                guard startLoad(attempt: attempt) else { continue }  // nothing to load: the mode says what instead
            case .welcome(let until, launched: false):
                guard let appID = settings.appID else {
                    state.mode = .loading(attempt: 1, notBefore: nil)
                    continue
                }
                let id = operationID()
                state.operation = .launching(id: id, until: until, epoch: state.epoch)
                emit(.launchWelcome(id: id, appID: appID))
            default:
                break
            }
            break
        }
    }

    /// After boot (or a restart of the service), a guest already on screen
    /// keeps it, whichever app they cast in. Decides only on what the receiver
    /// and the app's media status say, read after connecting: the receiver's
    /// status alone does not tell a guest's film in the Default Media Receiver
    /// from the kiosk's own item.
    mutating func lookAtStartup() -> StartupLook {
        let snapshot = state.latest
        if state.startupLookUntil == nil { state.startupLookUntil = now + KioskMachine.startupLook }
        guard let appID = snapshot.appID else { return endLook(.load) }  // the idle screen
        let name = snapshot.appName ?? appID
        guard isOwnApp(appID) else {
            enterGuest(seen: true, reason: "a guest is casting (\(name)) at start")
            return endLook(.again)
        }
        guard snapshot.mediaKnown else {
            if let until = state.startupLookUntil, now < until { return .wait }
            // The welcome app may have no media channel: its status never comes, and it is the kiosk's.
            if appID == settings.appID, appID != castAppID { return endLook(.load) }
            enterGuest(seen: true, reason: "\(name) is on screen and what it plays could not be read within \(Int(KioskMachine.startupLook.seconds)) s of connecting, so it is taken for a guest's")
            markUnverified()
            return endLook(.again)
        }
        let active = snapshot.player == .playing || snapshot.player == .buffering || snapshot.player == .paused
        guard let contentID = snapshot.contentID else {
            // No media session: the app has nothing loaded, or this snapshot was taken between the
            // client marking the status read and storing its media. The next one says which.
            if snapshot.mediaSessionID == nil, let until = state.startupLookUntil, now < until { return .wait }
            guard active else { return endLook(.load) }
            // Something plays and nothing says what: it is not loaded over.
            enterGuest(seen: true, reason: "\(name) is playing media it does not name, so it is taken for a guest's")
            markUnverified()
            return endLook(.again)
        }
        switch recognise(contentID, for: .startup(snapshot)) {
        case .pending: return .pending
        case .known(let own): return concludeLook(own: own, snapshot: snapshot)
        }
    }

    /// The first look's end, once it is known whether `snapshot` shows the kiosk's item `own`.
    mutating func concludeLook(own: Int?, snapshot: GatewayState) -> StartupLook {
        let active = snapshot.player == .playing || snapshot.player == .buffering || snapshot.player == .paused
        if let own {
            if active { adopt(own, from: snapshot) }
            return endLook(.load)
        }
        if active {
            enterGuest(seen: true, reason: "a guest is casting (\(snapshot.appName ?? snapshot.appID ?? "?")) at start")
            return endLook(.again)
        }
        return endLook(.load)
    }

    /// The guest mode just entered rests on not knowing what plays: the kiosk's own item, once named, ends it.
    private mutating func markUnverified() {
        guard case .guest(var guest) = state.mode else { return }
        guest.unverified = true
        state.mode = .guest(guest)
    }

    private mutating func endLook(_ look: StartupLook) -> StartupLook {
        state.startupPending = false
        state.startupLookUntil = nil
        return look
    }

    /// Starts the LOAD of the current item; false when there is none (the
    /// welcome app alone, after a backoff): then the welcome app is due, or nothing.
    private mutating func startLoad(attempt: Int) -> Bool {
        guard let index = state.playlist.currentIndex else {
            state.mode = settings.appID == nil ? .waiting("nothing to play") : .welcome(until: nil, launched: false)
            return false
        }
        let item = state.playlist.items[index]
        let id = operationID()
        state.operation = .loading(id: id, itemIndex: index, item: item, attempt: attempt, startAt: state.pendingStart, epoch: state.epoch)
        emit(.load(id: id, item: item, startTime: item.kind == .image ? 0 : state.pendingStart))
        return true
    }

    /// A LOAD ended.
    mutating func loaded(_ id: Int, _ outcome: KioskLoadOutcome) {
        guard case .loading(id, let index, let item, let attempt, let startAt, let epoch)? = state.operation else { return }
        state.operation = nil
        if epoch == state.epoch {  // else a command decided meanwhile
            switch outcome {
            case .unservable(let reason):
                itemFailed(index, reason: reason, attempt: attempt, retryable: false)
            case .linkDown(let reason):
                log(.info, "item \(index + 1) not loaded, the link is down (\(reason)); trying again when connected")
                state.mode = .loading(attempt: attempt, notBefore: now + KioskMachine.retryDelay)
            case .failed(let reason):
                itemFailed(index, reason: reason, attempt: attempt, retryable: true)
            case .loaded(let url, let after):
                state.pendingStart = 0
                var playing = KioskState.Playing(itemIndex: index, contentID: url, sessionID: after.contentID == url ? after.mediaSessionID : nil)
                if item.kind == .image {
                    playing.imageEnds = now + .seconds(fractional: item.duration ?? settings.imageDuration)
                }
                state.mode = .playing(playing)
                log(.notice, "playing \(index + 1)/\(state.playlist.count): \(item.title ?? item.source)" + (startAt > 0 ? " from \(Int(startAt)) s" : ""))
                saveNow(force: true, position: startAt)
            }
        }
        drive()
    }

    /// The welcome app's launch ended.
    mutating func launched(_ id: Int, _ outcome: KioskLaunchOutcome) {
        guard case .launching(id, let until, let epoch)? = state.operation else { return }
        state.operation = nil
        if epoch == state.epoch, let appID = settings.appID {
            switch outcome {
            case .launched:
                log(.notice, "showing the welcome app \(appID)" + (until.map { _ in " for \(Int(settings.appDuration)) s" } ?? ""))
                state.mode = .welcome(until: until, launched: true)
                if state.playlist.isEmpty { itemIsHealthy() }
            case .linkDown:
                return  // tried again at the next snapshot (the link's), not at once in a loop
            case .failed(let reason):
                log(.warning, "the welcome app \(appID) cannot be launched: \(reason)")
                if state.playlist.isEmpty {
                    backOff(reason: "the welcome app \(appID) cannot be launched: \(reason)")
                    state.mode = .backingOff(until: state.backingOffUntil)
                } else {
                    state.mode = .loading(attempt: 1, notBefore: nil)
                }
            }
        }
        drive()
    }

    // MARK: Progress and failures

    /// The item played: failures start counting afresh.
    mutating func itemIsHealthy() {
        state.consecutiveFailures = 0
        state.backoff.reset()
        if state.latest.kioskProblem != nil || state.lastProblem != nil {
            state.lastProblem = nil
            emit(.reportProblem(nil))
        }
    }

    /// The next item (or the welcome app between rounds, or the end).
    mutating func advance() {
        state.epoch += 1
        state.pendingStart = 0
        if state.playlist.isAtEnd, settings.loop, settings.appID != nil {
            state.playlist.advance(loop: true, shuffle: settings.shuffle, using: &state.generator)
            state.mode = .welcome(until: now + .seconds(fractional: settings.appDuration), launched: false)
        } else if state.playlist.advance(loop: settings.loop, shuffle: settings.shuffle, using: &state.generator) {
            state.mode = .loading(attempt: 1, notBefore: nil)
        } else {
            log(.notice, "end of the playlist (loop = false)")
            state.mode = .waiting("finished (loop = false)")
            saveNow(force: true)
        }
        drive()
    }

    /// Retries the item once, then skips it; when every item has failed in a row, backs off.
    mutating func itemFailed(_ index: Int, reason: String, attempt: Int, retryable: Bool) {
        let items = state.playlist.items
        let name = items.indices.contains(index) ? (items[index].title ?? items[index].source) : "?"
        if retryable, attempt < KioskMachine.maximumAttempts {
            log(.info, "item \(index + 1) (\(name)) failed: \(reason); trying once more")
            state.mode = .loading(attempt: attempt + 1, notBefore: now + KioskMachine.retryDelay)
            return
        }
        log(.warning, "skipping item \(index + 1)/\(state.playlist.count) (\(name)): \(reason)")
        state.consecutiveFailures += 1
        guard state.consecutiveFailures >= state.playlist.count else {
            advance()
            return
        }
        state.consecutiveFailures = 0
        backOff(reason: "every item of \(state.playlist.origin) failed (last: \(name): \(reason))")
        state.playlist.advance(loop: true, shuffle: settings.shuffle, using: &state.generator)
        state.mode = .backingOff(until: state.backingOffUntil)
    }

    private mutating func backOff(reason: String) {
        let delay = state.backoff.nextDelay(using: &state.generator)
        state.backingOffUntil = now + delay
        let problem = "\(reason); trying again in \(delay.secondsText)"
        log(.error, "kiosk: \(problem)")
        state.lastProblem = problem
        emit(.reportProblem(problem))
    }
}
