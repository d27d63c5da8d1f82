import GatewayModel

extension KioskMachine {
    /// A gateway snapshot: follows the item, notices guests, drives the loop.
    mutating func received(_ snapshot: GatewayState) {
        state.latest = snapshot
        guard snapshot.link == .connected else {
            // Each connection gets its own first look: a link lost before the media status came starts it again.
            if state.startupPending { state.startupLookUntil = nil }
            return
        }
        switch state.mode {
        case .loading, .welcome(_, launched: false):
            drive()
        case .playing(let playing):
            follow(playing, in: snapshot)
        case .welcome(_, launched: true):
            if let appID = snapshot.appID, !isOwnApp(appID) {
                enterGuest(seen: true, reason: "a guest cast \(snapshot.appName ?? appID)")
            } else if snapshot.appID == nil {
                enterGuest(seen: false, reason: "the welcome app was stopped on the TV")
            }
        case .guest(var guest):
            if guest.unverified, snapshot.mediaKnown, let contentID = snapshot.contentID, state.operation == nil {
                guest.unverified = false
                state.mode = .guest(guest)
                if let appID = snapshot.appID, isOwnApp(appID) {
                    // Pending: the outcome (`located`) goes on.
                    if case .known(let own) = recognise(contentID, for: .guest(snapshot)) { guestSnapshot(snapshot, own: own) }
                    break
                }
            }
            guestSnapshot(snapshot, own: nil)
        case .waiting, .closed, .backingOff:
            break
        }
        rescheduleTimer()
    }

    /// Watches the receiver while the kiosk's item plays.
    private mutating func follow(_ playing: KioskState.Playing, in snapshot: GatewayState) {
        guard let appID = snapshot.appID else {
            enterGuest(seen: false, reason: "the kiosk's app was stopped on the TV")
            return
        }
        guard isOwnApp(appID) else {
            enterGuest(seen: true, reason: "a guest cast \(snapshot.appName ?? appID)")
            return
        }
        guard let contentID = snapshot.contentID else { return }  // not known yet (joining)
        var current = playing
        if contentID != playing.contentID, let previous = state.previousSessionID, snapshot.mediaSessionID == previous {
            return  // the previous item's last status, overtaken by our own LOAD
        }
        if contentID != playing.contentID || (playing.sessionID != nil && snapshot.mediaSessionID != playing.sessionID) {
            log(.debug, "not the kiosk's media: \(contentID) session \(snapshot.mediaSessionID.map(String.init) ?? "-"), expected \(playing.contentID) session \(playing.sessionID.map(String.init) ?? "-")")
            enterGuest(seen: true, reason: "a guest loaded other media")
            return
        }
        if current.sessionID == nil { current.sessionID = snapshot.mediaSessionID }
        current.lastStatus = snapshot
        if snapshot.player == .playing, !current.confirmed {
            current.confirmed = true
            itemIsHealthy()
        }
        state.mode = .playing(current)
        guard snapshot.player == .idle else { return }
        switch snapshot.idleReason {
        case "FINISHED":
            log(.info, "item \(current.itemIndex + 1)/\(state.playlist.count) finished")
            state.previousSessionID = current.sessionID
            advance()
        case "ERROR":
            itemFailed(current.itemIndex, reason: "the receiver could not play it (IDLE, ERROR)", attempt: 1, retryable: true)
        case "CANCELLED", "INTERRUPTED":
            enterGuest(seen: false, reason: "the kiosk's item was stopped on the TV")
        default:
            break
        }
    }

    // MARK: Guests

    /// A snapshot while a guest has the screen; `own`: the kiosk's item the receiver turned out to play.
    mutating func guestSnapshot(_ snapshot: GatewayState, own: Int?) {
        guard case .guest(var guest) = state.mode else { return }
        if let own {
            adopt(own, from: snapshot)
            returnFromGuest("the receiver plays the kiosk's own item \(own + 1)/\(state.playlist.count)")
            return
        }
        if isForeign(snapshot) {
            guest.seen = true
            guest.appName = snapshot.appName ?? guest.appName
        }
        if guest.seen, snapshot.appID == nil {
            returnFromGuest("the guest's app stopped")
            return
        }
        let active = snapshot.player == .playing || snapshot.player == .buffering
        if active { guest.idleSince = nil } else if guest.idleSince == nil { guest.idleSince = now }
        state.mode = .guest(guest)
    }

    /// Another app, or other media in the kiosk's app.
    func isForeign(_ snapshot: GatewayState) -> Bool {
        guard let appID = snapshot.appID else { return false }
        if !isOwnApp(appID) { return true }
        guard let contentID = snapshot.contentID else { return false }
        if case .guest = state.mode { return contentID != state.lastContentID && snapshot.player != .idle }
        return false
    }

    mutating func enterGuest(seen: Bool, reason: String) {
        state.epoch += 1
        if case .playing(let playing) = state.mode {
            state.lastContentID = playing.contentID
            holdPosition(of: playing)
        }
        let active = state.latest.player == .playing || state.latest.player == .buffering
        state.mode = .guest(KioskState.Guest(seen: seen, idleSince: active ? nil : now, appName: state.latest.appName, since: now))
        let wait = settings.guestIdleMinutes > 0
            ? "after \(KioskMachine.minutes(settings.guestIdleMinutes)) min with nothing playing" : "when the guest's app stops"
        log(.notice, "\(reason): the loop pauses and returns \(seen ? "when the guest's app stops or " : "")\(wait)")
        rescheduleTimer()
    }

    mutating func returnFromGuest(_ reason: String) {
        state.epoch += 1
        log(.notice, "\(reason): back to the loop")
        if !scheduleIsOpen {
            state.mode = .closed
        } else if !state.loopRequested {
            state.mode = .waiting("stopped")
        } else if state.playlist.isEmpty {
            state.mode = settings.appID == nil ? .waiting("nothing to play") : .welcome(until: nil, launched: false)
        } else {
            state.mode = .loading(attempt: 1, notBefore: nil)
        }
        drive()
    }

    // MARK: Its own items

    /// What `recognise` found.
    enum Recognised: Equatable {
        /// The kiosk's item at this index, or nil: not the kiosk's.
        case known(Int?)
        /// The local items' URLs are asked for (`.locate`); `located` decides.
        case pending
    }

    /// Whether the receiver's `contentID` is one of the kiosk's items. URLs
    /// are compared at once; local files need their media server URLs, asked
    /// for as an operation when the content is served over http.
    mutating func recognise(_ contentID: String, for purpose: KioskState.Recognition) -> Recognised {
        var paths: [Int: String] = [:]
        for (index, item) in state.playlist.items.enumerated() {
            if case .localPath(let path) = item.location { paths[index] = path }
        }
        guard !paths.isEmpty, contentID.hasPrefix("http://") else { return .known(ownItem(playing: contentID, localURLs: [:])) }
        let id = operationID()
        state.operation = .recognising(id: id, contentID: contentID, purpose: purpose, epoch: state.epoch)
        emit(.locate(id: id, paths: paths))
        return .pending
    }

    /// The playlist item whose URL the receiver plays, if any: the kiosk knows
    /// its own items by their URLs (local files by their media server path,
    /// whatever the box's address, port or per-boot token), with or without a
    /// saved state. The current item is tried first.
    func ownItem(playing contentID: String, localURLs: [Int: String]) -> Int? {
        let playlist = state.playlist
        var candidates = Array(playlist.items.indices)
        if let current = playlist.currentIndex {
            candidates.removeAll { $0 == current }
            candidates.insert(current, at: 0)
        }
        for index in candidates {
            switch playlist.items[index].location {
            case .url(let url):
                if url == contentID { return index }
            case .localPath:
                guard contentID.hasPrefix("http://"), let url = localURLs[index] else { continue }
                if KioskMachine.isSameMedia(contentID, url, local: true) { return index }
            }
        }
        return nil
    }

    /// The media server's URLs came: the recognition asked for goes on.
    mutating func located(_ id: Int, _ urls: [Int: String]) {
        guard case .recognising(id, let contentID, let purpose, let epoch)? = state.operation else { return }
        state.operation = nil
        let own = ownItem(playing: contentID, localURLs: urls)
        switch purpose {
        case .startup(let snapshot):
            // A command decided meanwhile: the next look starts over.
            if epoch == state.epoch, state.startupPending { _ = concludeLook(own: own, snapshot: snapshot) }
            drive()
        case .guest(let snapshot):
            if epoch == state.epoch { guestSnapshot(snapshot, own: own) }
            drive()
        }
    }

    /// Makes item `index`, which the receiver plays, the current one, resuming where the receiver has got to.
    mutating func adopt(_ index: Int, from snapshot: GatewayState) {
        guard state.playlist.items.indices.contains(index) else { return }
        let item = state.playlist.items[index]
        state.playlist.select(itemIndex: index)
        state.pendingStart = item.kind == .image
            ? 0 : KioskMachine.resumablePosition(snapshot.position(at: now.seconds) ?? 0, duration: snapshot.duration ?? item.duration)
        log(.notice, "the receiver plays the kiosk's item \(index + 1)/\(state.playlist.count) (\(item.title ?? item.source)): resuming it at \(Int(state.pendingStart)) s")
    }

    /// Whether the receiver's `contentID` is the kiosk's `ours`. A local file's
    /// URL names this box's address and port, which a power cut may change
    /// (a new DHCP lease, `port = 0`), so two of this server's URLs match by path.
    static func isSameMedia(_ contentID: String, _ ours: String, local: Bool) -> Bool {
        if contentID == ours { return true }
        guard local else { return false }
        // The box's own media server may have moved (address, port) and, after a
        // reboot, changed its per-boot token (`/<32 hex digits>/root/path`):
        // the root and path below it name the file.
        func path(_ url: String) -> Substring? {
            guard url.hasPrefix("http://") else { return nil }
            let rest = url.dropFirst("http://".count)
            guard let start = rest.firstIndex(of: "/") else { return nil }
            let path = rest[start...]
            let first = path.dropFirst().prefix { $0 != "/" }
            let isToken = first.count == 32 && first.allSatisfy { $0.isHexDigit } && path.dropFirst(33).first != nil
            return isToken ? path.dropFirst(33) : path
        }
        guard let theirs = path(contentID), let mine = path(ours) else { return false }
        return theirs == mine
    }
}
