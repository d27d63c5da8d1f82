import GatewayModel

extension TVMachine {
    /// A new gateway state: the player for the reactions, the app for the
    /// power policy, the volume for the audio system.
    mutating func observe(_ snapshot: GatewayState) {
        let playing = snapshot.player == .playing || snapshot.player == .buffering
        if playing {
            // Playing again (someone pressed play, or a new cast): nothing left to resume.
            if state.player == .paused || snapshot.mediaSessionID != state.mediaSessionID { state.pausedByGateway = false }
        } else if snapshot.player != .paused || snapshot.mediaSessionID != state.mediaSessionID {
            state.pausedByGateway = false
        }
        if !playing { state.reactionSentAt = nil }
        state.player = snapshot.player
        state.mediaSessionID = snapshot.mediaSessionID

        let connected = snapshot.link == .connected
        if !connected {
            state.receiverBaseline = false
        } else if !state.receiverBaseline, let runsApp = snapshot.receiverRunsApp {
            // The receiver's first status on this link: what runs now was not
            // started now (the gateway joins that app only later).
            state.receiverBaseline = true
            state.powerPolicy.assume(appRunning: runsApp)
        }
        // Off the link nothing is casting for the policy: the client applies
        // the receiver's first status (naming what plays) one snapshot before
        // it says connected, and that app was found, not started.
        state.appRunning = connected && (snapshot.receiverRunsApp ?? (snapshot.appID != nil))
        state.linkConnected = connected
        if state.receiverBaseline || !connected {
            if let command = state.powerPolicy.update(appRunning: state.appRunning, connected: connected, now: now) {
                carryOutPolicy(command)
            }
        }

        let volume = snapshot.volumePercent
        state.volume = volume
        state.muted = snapshot.muted
        if configuration.audioSystem, state.tv.connected, let volume,
           state.reportedAudio.map({ $0.volume != volume || $0.muted != snapshot.muted }) ?? true {
            // The TV's volume bar follows every change, whoever made it.
            reportAudio(to: TVBusMessage.tv)
        }
    }

    /// The idle deadline may have passed.
    mutating func checkPowerPolicy() {
        guard state.receiverBaseline,
              let command = state.powerPolicy.update(appRunning: state.appRunning, connected: state.linkConnected, now: now) else { return }
        carryOutPolicy(command)
    }

    private mutating func carryOutPolicy(_ command: TVPowerPolicy.Command) {
        switch command {
        case .powerOn:
            log(.notice, "casting started: powering the TV on" + (castInput.map { " and selecting \(physicalAddressText($0))" } ?? ""))
            handleOwn(.powerOn(selecting: castInput))
        case .standby:
            if state.tv.power == .standby {
                log(.info, "nothing cast for a while; the TV is already in standby")
            } else if let castInput, let shown = state.tv.activeSource, shown != castInput {
                // Someone watches another input: the idle Chromecast is no reason to switch the TV off.
                log(.notice, "nothing cast for a while, but the TV shows \(state.tv.inputText(shown)): left on")
            } else {
                log(.notice, "nothing cast for a while: TV standby")
                handleOwn(.standby)
            }
        }
    }

    mutating func handleOwn(_ command: TVCommand) {
        switch command {
        case .powerOn(let input):
            state.ownPowerChangeUntil = now + TVMachine.ownChangeWindow
            state.ownInputChangeUntil = now + TVMachine.ownChangeWindow
            emit(.powerOn(selecting: input))
        case .standby:
            state.ownPowerChangeUntil = now + TVMachine.ownChangeWindow
            state.ownInputChangeUntil = now + TVMachine.ownChangeWindow
            emit(.standby)
        case .selectInput(let address):
            state.ownInputChangeUntil = now + TVMachine.ownChangeWindow
            emit(.selectInput(address))
        }
    }

    // MARK: Reactions

    /// The TV went to standby (or reported it).
    mutating func tvPower(_ power: TVPower) {
        let before = state.tv.power
        guard power != before else { return }
        state.tv.power = power
        if power == .standby {
            state.tv.activeSource = nil
            guard !isOwn(state.ownPowerChangeUntil) else { return }
            switch reactions.onStandby {
            case .none: break
            case .pause: react(.pause, because: "the TV went to standby")
            case .stop: react(.stop, because: "the TV went to standby")
            }
        } else if power == .on, before == .standby, !isOwn(state.ownPowerChangeUntil), reactions.onTVOn == .play {
            resume(because: "the TV is on again")
        }
    }

    /// The TV shows another source (or the Chromecast again).
    mutating func shown(_ address: UInt16) {
        let before = state.tv.activeSource
        guard address != before else { return }
        state.tv.activeSource = address
        guard let castInput, !isOwn(state.ownInputChangeUntil) else { return }
        if address != castInput {
            if reactions.onInputAway == .pause {
                react(.pause, because: "the TV switched to \(state.tv.inputText(address))")
            }
        } else if before != nil, reactions.onInputBack == .play {
            resume(because: "the TV is back on the Chromecast")
        }
    }

    /// PAUSE or STOP while the receiver plays, once per burst.
    private mutating func react(_ action: Action, because reason: String) {
        guard state.player == .playing || state.player == .buffering else { return }
        if let sent = state.reactionSentAt, now - sent < TVMachine.reactionHoldOff { return }
        state.reactionSentAt = now
        state.pausedByGateway = action == .pause
        log(.notice, "\(reason): \(action == .pause ? "pausing" : "stopping") the cast")
        emit(.perform(action))
    }

    /// PLAY, but only for what the gateway paused and is still paused.
    private mutating func resume(because reason: String) {
        guard state.pausedByGateway, state.player == .paused else { return }
        state.pausedByGateway = false
        log(.notice, "\(reason): playing on")
        emit(.perform(.play))
    }
}
