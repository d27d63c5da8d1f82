import CastClient
import GatewayCore
import GatewayModel
import SystemSupport

/// Plays the kiosk's loop on the gateway: one LOAD per item, the next one
/// when the receiver reports the item FINISHED (or a slide's time is up),
/// the current item and position saved so a power cut resumes it, guests
/// left alone and the loop taken back when they are done, the schedule kept.
///
/// Everything happens in reaction to gateway snapshots, commands and one
/// deadline on the gateway's clock, so tests drive it on a manual clock.
public actor KioskPlayer {
    /// What the player is doing.
    enum Mode: Equatable {
        /// Not playing: not started yet (`start = key|never`), stopped, at the end (`loop = false`), nothing to play.
        case waiting(String)
        /// Outside the schedule.
        case closed
        /// The current item is to be loaded (`attempt` of `maximumAttempts`), not before `notBefore`.
        case loading(attempt: Int, notBefore: Duration?)
        case playing(Playing)
        /// The welcome app: to be launched, or showing (until the deadline, or for good without a playlist).
        case welcome(until: Duration?, launched: Bool)
        /// Someone else has the screen.
        case guest(Guest)
        /// Every item failed: waiting before the next round.
        case backingOff(until: Duration)
    }

    struct Playing: Equatable {
        var itemIndex: Int
        /// The URL the LOAD named (the receiver reports it as contentId).
        var contentID: String
        var sessionID: Int?
        /// A slide's end.
        var imageEnds: Duration?
        /// The receiver has shown it playing (the item is healthy).
        var confirmed = false
        /// The newest snapshot showing this item. A guest's launch clears the
        /// media state, sometimes before the interruption itself is seen.
        var lastStatus: GatewayState?
    }

    struct Guest: Equatable {
        /// A guest's app or media was seen (not merely ours stopped from a remote).
        var seen: Bool
        /// Since when nothing has been playing.
        var idleSince: Duration?
        var appName: String?
        var since: Duration
        /// Entered at start because the app's media could not be read in time:
        /// once it is, the kiosk's own item hands the screen back at once.
        var unverified = false
    }

    /// What a start found on the receiver.
    enum StartupLook: Equatable {
        /// Not known yet: no LOAD until it is.
        case wait
        /// The mode changed (a guest, a command meanwhile): look at it again.
        case again
        /// Nothing to respect: load.
        case load
    }

    /// LOAD tries per item before it is skipped.
    static let maximumAttempts = 2
    static let retryDelay = Duration.seconds(2)
    /// How often the position is saved while playing.
    static let saveInterval = Duration.seconds(5)
    /// How long a start waits, from the link's first connection, to read the
    /// media status of the app it finds on screen.
    static let startupLook = Duration.seconds(5)

    let settings: KioskSettings
    let gateway: Gateway
    let locator: any MediaLocator
    let wallClock: any WallClock
    let store: KioskStateStore
    let clock: any TimeSource
    let logger = Logger(label: "kiosk")
    var generator: SeededGenerator

    var playlist = Playlist(items: [])
    var mode = Mode.waiting("starting")
    var latest = GatewayState()
    /// Bumped by every command that changes the mode, so a LOAD that was in
    /// flight meanwhile does not overwrite what the command decided.
    var epoch = 0
    /// Whether the loop should run (start = boot, a key, `playlist start`), schedule permitting.
    var loopRequested = false
    /// Where the next LOAD starts (a resumed or interrupted item).
    var pendingStart = 0.0
    /// The saved state found at start, until the first LOAD.
    var resumeFrom: KioskSavedState?
    /// A start (boot, service restart) has yet to learn whether a guest is on
    /// screen: nothing is loaded before it has.
    var startupPending = false
    /// Until then a start waits for the media status of the app on screen; set
    /// at the link's first connection, not at the player's start, so a slow
    /// connection (discovery, TLS) does not use the time up.
    var startupLookUntil: Duration?
    var consecutiveFailures = 0
    /// The media session of the kiosk's previous item: a snapshot of it that
    /// arrives after the next LOAD is stale, not a guest.
    var previousSessionID: Int?
    var backoff = Backoff(initial: .seconds(30), maximum: .seconds(600))
    var driving = false
    var nextSave: Duration?
    var lastSaved: KioskSavedState?
    /// False once the player is dropped without a graceful stop (tests: kill -9).
    var savesEnabled = true
    var standbyUnavailableLogged = false
    var timer: (id: Int, deadline: Duration, task: Task<Void, Never>)?
    var nextTimerID = 0
    /// The gateway's `[cast] app-id`: the kiosk's LOADs run in it.
    var castAppID = ""

    public init(settings: KioskSettings, gateway: Gateway, locator: any MediaLocator = LocalFilesUnavailable(),
                wallClock: any WallClock = SystemWallClock(), generator: SeededGenerator = SeededGenerator()) {
        self.settings = settings
        self.gateway = gateway
        self.locator = locator
        self.wallClock = wallClock
        self.generator = generator
        self.clock = gateway.timeSource
        store = KioskStateStore(path: settings.statePath)
    }

    /// Plays until cancelled, then saves the position (a graceful stop).
    public func run() async {
        await start()
        for await state in gateway.states() {
            await handle(state)
        }
        await finish()
    }

    /// Loads the playlist and the saved state and decides what the loop does first (internal: tests drive it).
    func start() async {
        do {
            playlist = try Playlist.load(settings.source)
            if settings.shuffle { playlist.rewind(shuffle: true, using: &generator) }
            if !playlist.isEmpty { logger.notice("playlist \(playlist.origin): \(playlist.count) items") }
        } catch {
            logger.error("the kiosk cannot play: \(error)")
            await gateway.setKioskProblem("\(error)")
        }
        resumeFrom = await store.loadInBackground()
        startupLookUntil = nil
        loopRequested = settings.start == .boot
        if !scheduleIsOpen {
            logger.notice("outside the schedule (\(settings.schedule.windows.map(\.description).joined(separator: ", "))): waiting")
            mode = .closed
        } else if loopRequested {
            // The loop starts now: not over what a guest may have been casting before this start.
            startupPending = true
            beginLoop(resuming: true)
        } else {
            mode = .waiting(settings.start == .key ? "waiting for a play key" : "waiting for 'playlist start'")
        }
        rescheduleTimer()
    }

    /// Stops the timer and saves the position (a graceful stop; internal: tests drive it).
    func finish() async {
        timer?.task.cancel()
        timer = nil
        guard savesEnabled else { return }
        saveNow(force: true)
        await store.flush()
        await gateway.setKioskProblem(nil)
    }

    /// Drops the player as `kill -9` would: nothing more is saved (tests).
    func dropWithoutSaving() {
        savesEnabled = false
    }

    // MARK: Snapshots

    func handle(_ state: GatewayState) async {
        // The app id first: a command running while this waits must not see the new state with a stale id.
        castAppID = await gateway.settings.cast.appID
        latest = state
        guard state.link == .connected else {
            // Each connection gets its own first look: a link lost before the media status came starts it again.
            if startupPending { startupLookUntil = nil }
            return
        }
        switch mode {
        case .loading, .welcome(_, launched: false):
            await drive()
        case .playing(let playing):
            await follow(playing, in: state)
        case .welcome(_, launched: true):
            if let appID = state.appID, !isOwnApp(appID) {
                enterGuest(seen: true, reason: "a guest cast \(state.appName ?? appID)")
            } else if state.appID == nil {
                enterGuest(seen: false, reason: "the welcome app was stopped on the TV")
            }
        case .guest(var guest):
            if guest.unverified, state.mediaKnown, let contentID = state.contentID {
                guest.unverified = false
                mode = .guest(guest)
                let started = epoch
                var own: Int?
                if let appID = state.appID, isOwnApp(appID) { own = await ownItem(playing: contentID) }
                guard started == epoch, case .guest(let current) = mode else {  // a command decided meanwhile
                    rescheduleTimer()
                    return
                }
                if let own {
                    adopt(own, from: state)
                    await returnFromGuest("the receiver plays the kiosk's own item \(own + 1)/\(playlist.count)")
                    return
                }
                guest = current
            }
            if isForeign(state) {
                guest.seen = true
                guest.appName = state.appName ?? guest.appName
            }
            if guest.seen, state.appID == nil {
                await returnFromGuest("the guest's app stopped")
                return
            }
            let active = state.player == .playing || state.player == .buffering
            if active { guest.idleSince = nil } else if guest.idleSince == nil { guest.idleSince = clock.now }
            mode = .guest(guest)
        case .waiting, .closed, .backingOff:
            break
        }
        rescheduleTimer()
    }

    /// Watches the receiver while the kiosk's item plays.
    private func follow(_ playing: Playing, in state: GatewayState) async {
        guard let appID = state.appID else {
            enterGuest(seen: false, reason: "the kiosk's app was stopped on the TV")
            return
        }
        guard isOwnApp(appID) else {
            enterGuest(seen: true, reason: "a guest cast \(state.appName ?? appID)")
            return
        }
        guard let contentID = state.contentID else { return }  // not known yet (joining)
        var current = playing
        if contentID != playing.contentID, let previous = previousSessionID, state.mediaSessionID == previous {
            return  // the previous item's last status, overtaken by our own LOAD
        }
        if contentID != playing.contentID || (playing.sessionID != nil && state.mediaSessionID != playing.sessionID) {
            logger.debug("not the kiosk's media: \(contentID) session \(state.mediaSessionID.map(String.init) ?? "-"), expected \(playing.contentID) session \(playing.sessionID.map(String.init) ?? "-")")
            enterGuest(seen: true, reason: "a guest loaded other media")
            return
        }
        if current.sessionID == nil { current.sessionID = state.mediaSessionID }
        current.lastStatus = state
        if state.player == .playing, !current.confirmed {
            current.confirmed = true
            await itemIsHealthy()
        }
        mode = .playing(current)
        guard state.player == .idle else { return }
        switch state.idleReason {
        case "FINISHED":
            logger.info("item \(current.itemIndex + 1)/\(playlist.count) finished")
            previousSessionID = current.sessionID
            await advance()
        case "ERROR":
            await itemFailed(current.itemIndex, reason: "the receiver could not play it (IDLE, ERROR)", attempt: 1, retryable: true)
        case "CANCELLED", "INTERRUPTED":
            enterGuest(seen: false, reason: "the kiosk's item was stopped on the TV")
        default:
            break
        }
    }

    // MARK: Loading

    /// Starts the loop at the current item (the saved one after boot).
    func beginLoop(resuming: Bool) {
        epoch += 1
        pendingStart = 0
        guard !playlist.isEmpty else {
            mode = settings.appID == nil ? .waiting("nothing to play") : .welcome(until: nil, launched: false)
            return
        }
        if resuming, let saved = resumeFrom {
            let index = playlist.items.indices.contains(saved.itemIndex) && playlist.items[saved.itemIndex].source == saved.source
                ? saved.itemIndex : playlist.index(ofSource: saved.source)
            if let index {
                playlist.select(itemIndex: index)
                let item = playlist.items[index]
                pendingStart = item.kind == .image ? 0 : KioskPlayer.resumablePosition(saved.position, duration: saved.duration ?? item.duration)
                logger.notice("resuming item \(index + 1)/\(playlist.count) at \(Int(pendingStart)) s")
            } else {
                logger.notice("the saved item \(saved.source) is no longer in the playlist: starting from the first item")
            }
        }
        resumeFrom = nil
        mode = .loading(attempt: 1, notBefore: nil)
    }

    /// Does what the mode asks for while it can (one LOAD or launch at a time).
    func drive() async {
        guard !driving else { return }
        driving = true
        defer { driving = false }
        while latest.link == .connected {
            switch mode {
            case .loading(let attempt, let notBefore):
                if let notBefore, clock.now < notBefore { break }
                if startupPending {
                    let look = await lookAtStartup()
                    if look == .wait { break }  // learning what the receiver plays before loading over it
                    if look == .again { continue }
                }
                await load(attempt: attempt)
                continue
            case .welcome(let until, launched: false):
                await launchWelcome(until: until)
                continue
            default:
                break
            }
            break
        }
        rescheduleTimer()
    }

    /// After boot (or a restart of the service), a guest already on screen
    /// keeps it, whichever app they cast in. Decides only on what the receiver
    /// and the app's media status say, read after connecting: the receiver's
    /// status alone does not tell a guest's film in the Default Media Receiver
    /// from the kiosk's own item.
    func lookAtStartup() async -> StartupLook {
        let state = latest
        if startupLookUntil == nil { startupLookUntil = clock.now + KioskPlayer.startupLook }
        guard let appID = state.appID else { return endLook(.load) }  // the idle screen
        let name = state.appName ?? appID
        guard isOwnApp(appID) else {
            enterGuest(seen: true, reason: "a guest is casting (\(name)) at start")
            return endLook(.again)
        }
        guard state.mediaKnown else {
            if let until = startupLookUntil, clock.now < until { return .wait }
            // The welcome app may have no media channel: its status never comes, and it is the kiosk's.
            if appID == settings.appID, appID != castAppID { return endLook(.load) }
            enterGuest(seen: true, reason: "\(name) is on screen and what it plays could not be read within \(Int(KioskPlayer.startupLook.seconds)) s of connecting, so it is taken for a guest's")
            markUnverified()
            return endLook(.again)
        }
        let active = state.player == .playing || state.player == .buffering || state.player == .paused
        guard let contentID = state.contentID else {
            // No media session: the app has nothing loaded, or this snapshot was taken between the
            // client marking the status read and storing its media. The next one says which.
            if state.mediaSessionID == nil, let until = startupLookUntil, clock.now < until { return .wait }
            guard active else { return endLook(.load) }
            // Something plays and nothing says what: it is not loaded over.
            enterGuest(seen: true, reason: "\(name) is playing media it does not name, so it is taken for a guest's")
            markUnverified()
            return endLook(.again)
        }
        let started = epoch
        let own = await ownItem(playing: contentID)
        guard started == epoch, startupPending else { return .again }  // a command decided meanwhile
        if let own {
            if active { adopt(own, from: state) }
            return endLook(.load)
        }
        if active {
            enterGuest(seen: true, reason: "a guest is casting (\(name)) at start")
            return endLook(.again)
        }
        return endLook(.load)
    }

    /// The guest mode just entered rests on not knowing what plays: the kiosk's own item, once named, ends it.
    private func markUnverified() {
        guard case .guest(var guest) = mode else { return }
        guest.unverified = true
        mode = .guest(guest)
    }

    private func endLook(_ look: StartupLook) -> StartupLook {
        startupPending = false
        startupLookUntil = nil
        return look
    }

    /// The playlist item whose URL the receiver plays, if any: the kiosk knows
    /// its own items by their URLs (local files by their media server path),
    /// with or without a saved state. The current item is tried first.
    func ownItem(playing contentID: String) async -> Int? {
        var candidates = Array(playlist.items.indices)
        if let current = playlist.currentIndex {
            candidates.removeAll { $0 == current }
            candidates.insert(current, at: 0)
        }
        for index in candidates {
            switch playlist.items[index].location {
            case .url(let url):
                if url == contentID { return index }
            case .localPath(let path):
                guard contentID.hasPrefix("http://"), let media = try? await locator.media(forLocalPath: path) else { continue }
                if KioskPlayer.isSameMedia(contentID, media.url, local: true) { return index }
            }
        }
        return nil
    }

    /// Makes item `index`, which the receiver plays, the current one, resuming where the receiver has got to.
    func adopt(_ index: Int, from state: GatewayState) {
        guard playlist.items.indices.contains(index) else { return }
        let item = playlist.items[index]
        playlist.select(itemIndex: index)
        pendingStart = item.kind == .image ? 0 : KioskPlayer.resumablePosition(state.position(at: clock.now.seconds) ?? 0, duration: state.duration ?? item.duration)
        logger.notice("the receiver plays the kiosk's item \(index + 1)/\(playlist.count) (\(item.title ?? item.source)): resuming it at \(Int(pendingStart)) s")
    }

    /// A position a LOAD may start at: finite, from 0 to the item's length (a day when unknown).
    static func resumablePosition(_ seconds: Double, duration: Double?) -> Double {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return min(seconds, KioskSavedState.validDuration(duration) ?? KioskSavedState.maximumPosition)
    }

    private func load(attempt: Int) async {
        guard let index = playlist.currentIndex else { return }
        let item = playlist.items[index]
        let startAt = pendingStart
        let started = epoch
        let request: CastRequest
        do {
            request = try await castRequest(for: item, startTime: startAt)
        } catch {
            guard started == epoch else { return }
            await itemFailed(index, reason: "\(error)", attempt: attempt, retryable: false)
            return
        }
        do {
            try await gateway.cast(request)
        } catch {
            guard started == epoch else { return }
            if KioskPlayer.isLinkProblem(error) {
                logger.info("item \(index + 1) not loaded, the link is down (\(error)); trying again when connected")
                mode = .loading(attempt: attempt, notBefore: clock.now + KioskPlayer.retryDelay)
                return
            }
            await itemFailed(index, reason: "\(error)", attempt: attempt, retryable: true)
            return
        }
        guard started == epoch else { return }
        let state = await gateway.state
        pendingStart = 0
        var playing = Playing(itemIndex: index, contentID: request.url,
                              sessionID: state.contentID == request.url ? state.mediaSessionID : nil)
        if item.kind == .image {
            playing.imageEnds = clock.now + .seconds(fractional: item.duration ?? settings.imageDuration)
        }
        mode = .playing(playing)
        logger.notice("playing \(index + 1)/\(playlist.count): \(item.title ?? item.source)" + (startAt > 0 ? " from \(Int(startAt)) s" : ""))
        saveNow(force: true, position: startAt)
    }

    /// The LOAD for `item`: URLs as they are, local paths through the media locator.
    func castRequest(for item: PlaylistItem, startTime: Double) async throws -> CastRequest {
        var request: CastRequest
        switch item.location {
        case .url(let url):
            request = CastRequest(url: url, title: item.title)
        case .localPath(let path):
            let media = try await locator.media(forLocalPath: path)
            request = CastRequest(url: media.url, title: item.title ?? KioskPlayer.fileName(path))
            request.contentType = media.contentType
            if let subtitles = media.subtitles.first {
                request.subtitlesURL = subtitles.url
                request.subtitlesLanguage = subtitles.language ?? "en"
            }
        }
        request.startTime = item.kind == .image ? 0 : startTime
        return request
    }

    private func launchWelcome(until: Duration?) async {
        guard let appID = settings.appID else {
            mode = .loading(attempt: 1, notBefore: nil)
            return
        }
        let started = epoch
        do {
            try await gateway.launch(appID: appID, allowsAndroidReceiver: false)
            guard started == epoch else { return }
            logger.notice("showing the welcome app \(appID)" + (until.map { _ in " for \(Int(settings.appDuration)) s" } ?? ""))
            mode = .welcome(until: until, launched: true)
            if playlist.isEmpty { await itemIsHealthy() }
        } catch {
            guard started == epoch else { return }
            if KioskPlayer.isLinkProblem(error) { return }
            logger.warning("the welcome app \(appID) cannot be launched: \(error)")
            if playlist.isEmpty {
                await backOff(reason: "the welcome app \(appID) cannot be launched: \(error)")
                mode = .backingOff(until: backingOffUntil)
            } else {
                mode = .loading(attempt: 1, notBefore: nil)
            }
        }
    }

    // MARK: Progress and failures

    /// The item played: failures start counting afresh.
    func itemIsHealthy() async {
        consecutiveFailures = 0
        backoff.reset()
        if latest.kioskProblem != nil || lastProblem != nil {
            lastProblem = nil
            await gateway.setKioskProblem(nil)
        }
    }

    var lastProblem: String?
    private var backingOffUntil = Duration.zero

    /// The next item (or the welcome app between rounds, or the end).
    func advance() async {
        epoch += 1
        pendingStart = 0
        if playlist.isAtEnd, settings.loop, settings.appID != nil {
            playlist.advance(loop: true, shuffle: settings.shuffle, using: &generator)
            mode = .welcome(until: clock.now + .seconds(fractional: settings.appDuration), launched: false)
        } else if playlist.advance(loop: settings.loop, shuffle: settings.shuffle, using: &generator) {
            mode = .loading(attempt: 1, notBefore: nil)
        } else {
            logger.notice("end of the playlist (loop = false)")
            mode = .waiting("finished (loop = false)")
            saveNow(force: true)
        }
        await drive()
    }

    /// Retries the item once, then skips it; when every item has failed in a row, backs off.
    func itemFailed(_ index: Int, reason: String, attempt: Int, retryable: Bool) async {
        let name = playlist.items.indices.contains(index) ? (playlist.items[index].title ?? playlist.items[index].source) : "?"
        if retryable, attempt < KioskPlayer.maximumAttempts {
            logger.info("item \(index + 1) (\(name)) failed: \(reason); trying once more")
            mode = .loading(attempt: attempt + 1, notBefore: clock.now + KioskPlayer.retryDelay)
            return
        }
        logger.warning("skipping item \(index + 1)/\(playlist.count) (\(name)): \(reason)")
        consecutiveFailures += 1
        guard consecutiveFailures >= playlist.count else {
            await advance()
            return
        }
        consecutiveFailures = 0
        await backOff(reason: "every item of \(playlist.origin) failed (last: \(name): \(reason))")
        playlist.advance(loop: true, shuffle: settings.shuffle, using: &generator)
        mode = .backingOff(until: backingOffUntil)
    }

    private func backOff(reason: String) async {
        let delay = backoff.nextDelay()
        backingOffUntil = clock.now + delay
        let problem = "\(reason); trying again in \(delay.secondsText)"
        logger.error("kiosk: \(problem)")
        lastProblem = problem
        await gateway.setKioskProblem(problem)
    }

    // MARK: Guests

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

    func isOwnApp(_ appID: String) -> Bool {
        appID == castAppID || appID == settings.appID
    }

    /// Another app, or other media in the kiosk's app.
    func isForeign(_ state: GatewayState) -> Bool {
        guard let appID = state.appID else { return false }
        if !isOwnApp(appID) { return true }
        guard let contentID = state.contentID else { return false }
        if case .guest = mode { return contentID != lastContentID && state.player != .idle }
        return false
    }

    var lastContentID: String?

    func enterGuest(seen: Bool, reason: String) {
        epoch += 1
        if case .playing(let playing) = mode {
            lastContentID = playing.contentID
            holdPosition(of: playing)
        }
        let active = latest.player == .playing || latest.player == .buffering
        mode = .guest(Guest(seen: seen, idleSince: active ? nil : clock.now, appName: latest.appName, since: clock.now))
        let wait = settings.guestIdleMinutes > 0 ? "after \(KioskPlayer.minutes(settings.guestIdleMinutes)) min with nothing playing" : "when the guest's app stops"
        logger.notice("\(reason): the loop pauses and returns \(seen ? "when the guest's app stops or " : "")\(wait)")
        rescheduleTimer()
    }

    func returnFromGuest(_ reason: String) async {
        epoch += 1
        logger.notice("\(reason): back to the loop")
        guard scheduleIsOpen else {
            mode = .closed
            return
        }
        guard loopRequested else {
            mode = .waiting("stopped")
            return
        }
        if playlist.isEmpty {
            mode = settings.appID == nil ? .waiting("nothing to play") : .welcome(until: nil, launched: false)
        } else {
            mode = .loading(attempt: 1, notBefore: nil)
        }
        await drive()
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func minutes(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }

    static func isLinkProblem(_ error: any Error) -> Bool {
        if let error = error as? GatewayError { return error.code == .noDevice }
        if let error = error as? CastError {
            return [.notConnected, .disconnected, .deviceUnavailable, .cancelled].contains(error.code)
        }
        return false
    }
}
