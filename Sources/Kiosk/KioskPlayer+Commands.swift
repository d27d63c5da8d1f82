import GatewayCore
import GatewayModel
import SystemSupport

extension KioskPlayer {
    /// Front-desk reset: stops any app on the TV (the guest's), forgets
    /// credentials typed at runtime, resets the volume, and restarts the loop
    /// from the first item (`start = boot`; otherwise it waits as at boot).
    public func checkout() async throws -> [String] {
        epoch += 1
        mode = .waiting("checkout")
        var done: [String] = []
        var failures: [String] = []
        // The gateway's own state: this player's latest snapshot may lag a guest's launch.
        let current = await gateway.state
        if let appID = current.appID {
            do {
                try await gateway.perform(.stopApp)
                done.append("stopped \(current.appName ?? appID)")
            } catch {
                failures.append("could not stop \(current.appName ?? appID): \(error)")
            }
        }
        await gateway.forgetTypedCredentials()
        done.append("typed credentials cleared")
        do {
            try await gateway.perform(.setVolume(Double(settings.volume) / 100))
            done.append("volume \(settings.volume)%")
        } catch {
            failures.append("could not set the volume to \(settings.volume)%: \(error)")
        }
        epoch += 1
        playlist.rewind(shuffle: settings.shuffle, using: &generator)
        pendingStart = 0
        resumeFrom = nil
        startupPending = false
        startupLookUntil = nil
        consecutiveFailures = 0
        backoff.reset()
        if lastProblem != nil {
            lastProblem = nil
            await gateway.setKioskProblem(nil)
        }
        loopRequested = settings.start == .boot
        if !scheduleIsOpen {
            mode = .closed
            done.append("outside the schedule: the loop starts in the next window")
        } else if loopRequested {
            beginLoop(resuming: false)
            done.append(playlist.isEmpty ? "welcome app restarted" : "loop restarted from item 1")
        } else {
            mode = .waiting(settings.start == .key ? "waiting for a play key" : "waiting for 'playlist start'")
            done.append("loop rewound to item 1, waiting (start = \(settings.start.rawValue))")
        }
        saveNow(force: true, position: 0)
        logger.notice("checkout: \(done.joined(separator: ", "))")
        await drive()
        return ["ok: checkout: " + done.joined(separator: ", ")] + failures.map { "error: \($0)" }
    }

    /// Re-reads the playlist; the current item carries on when it is still listed.
    public func reloadPlaylist() async throws -> [String] {
        guard settings.source != .none else {
            throw GatewayError(.badArgument, "no playlist is configured ([kiosk] playlist or media)")
        }
        let fresh: Playlist
        do {
            fresh = try Playlist.load(settings.source)
        } catch {
            logger.error("playlist not reloaded, the old one plays on: \(error)")
            throw GatewayError(.badArgument, "playlist not reloaded, the old one plays on: \(error)")
        }
        let currentSource = playingIndex.map { playlist.items[$0].source } ?? playlist.current?.source
        let wasEmpty = playlist.isEmpty
        playlist = fresh
        playlist.rewind(shuffle: settings.shuffle, using: &generator)
        var note = "from the first item"
        if let currentSource, let index = playlist.index(ofSource: currentSource) {
            playlist.select(itemIndex: index)
            if case .playing(var playing) = mode {
                playing.itemIndex = index
                mode = .playing(playing)
            }
            note = "item \(index + 1) carries on"
        } else {
            pendingStart = 0
            switch mode {
            case .playing, .loading, .backingOff:
                epoch += 1
                mode = .loading(attempt: 1, notBefore: nil)
            case .welcome where wasEmpty:
                epoch += 1
                mode = .loading(attempt: 1, notBefore: nil)
            default:
                break
            }
        }
        if lastProblem != nil || latest.kioskProblem != nil {
            lastProblem = nil
            consecutiveFailures = 0
            backoff.reset()
            await gateway.setKioskProblem(nil)
        }
        logger.notice("playlist reloaded: \(playlist.count) items from \(playlist.origin); \(note)")
        await drive()
        return ["ok: playlist reloaded: \(playlist.count) items, \(note)"]
    }

    /// The current item, its position and what the loop is doing.
    public func status() -> [String] {
        var lines: [String] = []
        let options = "loop \(settings.loop ? "on" : "off"), shuffle \(settings.shuffle ? "on" : "off"), start \(settings.start.rawValue)"
        lines.append(playlist.isEmpty ? "playlist: none (\(options))" : "playlist: \(playlist.origin) (\(playlist.count) items, \(options))")
        func itemText(_ index: Int) -> String {
            let item = playlist.items[index]
            return "item \(index + 1)/\(playlist.count) \"\(item.title ?? KioskPlayer.fileName(item.source))\""
        }
        let now = clock.now
        switch mode {
        case .waiting(let why):
            lines.append("now: stopped (\(why))" + (playlist.currentIndex.map { "; next: " + itemText($0) } ?? ""))
        case .closed:
            lines.append("now: outside the schedule")
        case .loading:
            lines.append("now: loading " + (playlist.currentIndex.map(itemText) ?? "?"))
        case .playing(let playing):
            var text = "now: playing " + itemText(playing.itemIndex)
            if let position = position(of: playing) {
                text += " " + KioskPlayer.clockText(position) + (latest.duration.map { " / " + KioskPlayer.clockText($0) } ?? "")
            }
            if let ends = playing.imageEnds { text += " (slide, \(max(Int((ends - now).seconds.rounded()), 0)) s left)" }
            lines.append(text)
        case .welcome(let until, let launched):
            lines.append("now: welcome app \(settings.appID ?? "?")" + (launched ? "" : " (launching)")
                         + (until.map { " for \(max(Int(($0 - now).seconds.rounded()), 0)) s more" } ?? ""))
        case .guest(let guest):
            var text = "now: a guest has the screen" + (guest.appName.map { " (\($0))" } ?? "")
            if let idle = guest.idleSince, settings.guestIdleMinutes > 0 {
                let left = settings.guestIdleMinutes * 60 - (now - idle).seconds
                text += "; back to the loop in \(max(Int(left.rounded()), 0)) s unless something plays"
            } else {
                text += "; back to the loop when the guest's app stops"
            }
            lines.append(text)
            if let index = playlist.currentIndex { lines.append("  then: " + itemText(index)) }
        case .backingOff(let until):
            lines.append("now: every item failed; next try in \(max(Int((until - now).seconds.rounded()), 0)) s")
        }
        if !settings.schedule.windows.isEmpty {
            lines.append("schedule: \(settings.schedule.windows.map(\.description).joined(separator: ", ")) (\(scheduleIsOpen ? "open" : "closed") now)")
        }
        if let problem = lastProblem { lines.append("problem: \(problem)") }
        if let problem = store.saveProblem { lines.append("problem: \(problem)") }
        return lines
    }

    public func startLoop() async throws -> [String] {
        loopRequested = true
        switch mode {
        case .closed:
            return ["ok: the loop starts in the next schedule window"]
        case .playing, .loading, .welcome, .backingOff:
            return ["ok: the loop is already running"]
        case .guest:
            return ["ok: a guest has the screen; the loop returns when they are done"]
        case .waiting:
            beginLoop(resuming: resumeFrom != nil)
            await drive()
            return ["ok: loop started"]
        }
    }

    public func stopLoop() async throws -> [String] {
        loopRequested = false
        let showing: Bool = switch mode {
        case .playing, .loading, .welcome, .backingOff: true
        case .waiting, .closed, .guest: false
        }
        if case .playing(let playing) = mode { holdPosition(of: playing) }
        epoch += 1
        mode = .waiting("stopped by 'playlist stop'")
        rescheduleTimer()
        if showing, let appID = latest.appID, isOwnApp(appID) {
            try await gateway.perform(.stopApp)
        }
        return ["ok: loop stopped ('playlist start' resumes it)"]
    }

    public func skip(by offset: Int) async throws -> [String] {
        guard !playlist.isEmpty else { throw GatewayError(.badArgument, "no playlist to skip in") }
        switch mode {
        case .closed: throw GatewayError(.unavailable, "outside the schedule")
        case .guest: throw GatewayError(.unavailable, "a guest has the screen")
        default: break
        }
        epoch += 1
        if offset < 0 {
            playlist.previous()
        } else {
            playlist.advance(loop: true, shuffle: settings.shuffle, using: &generator)
        }
        pendingStart = 0
        loopRequested = true
        mode = .loading(attempt: 1, notBefore: nil)
        await drive()
        return ["ok: " + (playlist.currentIndex.map { "item \($0 + 1)/\(playlist.count)" } ?? "")]
    }

    /// `start = key`: a play key starts the loop.
    public func keyPressed(_ action: Action?) async {
        guard settings.start == .key, case .waiting = mode, !loopRequested else { return }
        guard let action, [.play, .toggle, .launchApp].contains(action) else { return }
        logger.notice("\(action.name) pressed: starting the loop")
        _ = try? await startLoop()
    }

    static func clockText(_ seconds: Double) -> String {
        let total = Int(min(max(seconds, 0), 359_999).rounded(.down))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let mmss = (minutes < 10 ? "0" : "") + "\(minutes):" + (secs < 10 ? "0" : "") + "\(secs)"
        return hours > 0 ? "\(hours):" + mmss : mmss
    }
}
