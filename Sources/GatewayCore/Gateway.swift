import CastClient
import CastProtocol
import GatewayModel
import SystemSupport

/// The core: owns the Cast client, carries out actions from every input,
/// follows the device through discovery, and publishes one `GatewayState`
/// that every output renders.
public actor Gateway {
    /// Which device the gateway controls.
    enum Target: Equatable {
        case none
        /// A fixed address (config `host`, or `--device`).
        case address(host: String, port: UInt16)
        /// A friendly name or id, resolved through discovery.
        case discovered(String)
    }

    /// The core's settings; `apply(_:)` replaces them on a live reload.
    public private(set) var settings: GatewaySettings
    public nonisolated let timeSource: any TimeSource
    let broadcaster = StateBroadcaster(GatewayState())
    let logger = Logger(label: "gateway")
    private let connector: CastClient.Connector
    private let version: String
    private(set) var client: CastClient?
    private var target: Target
    private var discovery = DiscoverySnapshot()
    /// Whether the gateway needs mDNS (a named target, 'devices', 'use',
    /// next-device): until then a fixed host leaves discovery idle.
    private let discoveryWanted = StateBroadcaster(false)
    private var actionError: GatewayState.Problem?
    /// The client's newest snapshot the gateway has applied, and its number.
    /// Client state reaches the gateway only through the client's published
    /// snapshots (`follow(_:)`): nothing pulls it.
    private(set) var clientState: CastClientState?
    private var appliedClientVersion: UInt64 = 0
    /// Requests waiting for the gateway to apply the snapshot they ended with.
    private var catchUpWaiters: [(version: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var clientTask: Task<Void, Never>?
    private var started = false
    private var inputProblems: [String: String] = [:]
    private var configProblem: String?
    private var updateReport: UpdateReport?
    private var updateProgress: UpdateProgress?
    private var updateOffer: UpdateRequest?
    private var serviceProblems: [String: String] = [:]
    private var serviceFailures: [String: String] = [:]
    private var kioskProblem: String?
    private var kioskItems: KioskItems?
    private var tvControl: (any TVControl)?
    private var tvStatus: TVStatus?
    /// Credentials typed at runtime (`creds`): they outlive reconnects and new
    /// clients (a named device that leaves and returns) until cleared. nil: none typed.
    private var typedCredentials: LaunchCredentials??

    /// Builds the device authenticator for `[cast] trust-anchors` (the daemon
    /// plugs in OpenSSL's verifier); nil: receivers are not challenged.
    public typealias AuthenticatorFactory = @Sendable (_ trustAnchors: String?) -> (any DeviceAuthenticator)?
    private let makeAuthenticator: AuthenticatorFactory
    private var authenticator: (any DeviceAuthenticator)?

    /// Turns local paths (`cast /srv/media/a.mp4`, presets, playlists) into URLs of the media server.
    let mediaLocator: (any MediaLocator)?

    public init(settings: GatewaySettings, connector: @escaping CastClient.Connector,
                timeSource: any TimeSource = SystemTimeSource(), version: String = "0.1.0",
                authenticator: @escaping AuthenticatorFactory = { _ in nil }, mediaLocator: (any MediaLocator)? = nil) {
        self.settings = settings
        self.mediaLocator = mediaLocator
        self.connector = connector
        self.makeAuthenticator = authenticator
        self.authenticator = settings.cast.authentication == .off ? nil : authenticator(settings.cast.trustAnchors)
        self.timeSource = timeSource
        self.version = version
        target = Gateway.target(for: settings.device.target)
    }

    private static func target(for device: DeviceSettings.Target?) -> Target {
        switch device {
        case .address(let host, let port)?: .address(host: host, port: port)
        case .name(let name)?: .discovered(name)
        case .id(let id)?: .discovered(id)
        case nil: .none
        }
    }

    /// Snapshots of the gateway's state, starting with the current one.
    public nonisolated func states() -> AsyncStream<GatewayState> { broadcaster.subscribe() }

    public var state: GatewayState { broadcaster.current }


    /// Starts connecting to a fixed device; a named one waits for discovery.
    public func start() async {
        guard !started else { return }
        started = true
        if target == .none { logger.warning("no device configured: set [device] host, name or id in the config file") }
        await reconcileTarget()
    }

    /// Follows discovery snapshots (from the mDNS browser) until they end or
    /// the calling task is cancelled.
    public nonisolated func follow(discovery snapshots: AsyncStream<DiscoverySnapshot>) async {
        for await snapshot in snapshots { await discoveryChanged(snapshot) }
    }

    /// true once the gateway needs mDNS discovery (then it stays so).
    public nonisolated func discoveryRequests() -> AsyncStream<Bool> { discoveryWanted.subscribe() }

    /// Asks for mDNS discovery; returns whether it had been asked for already
    /// (if not, the device table is still empty: a reply says to ask again).
    @discardableResult
    public nonisolated func wantDiscovery() -> Bool {
        guard !discoveryWanted.current else { return true }
        discoveryWanted.publish(true)
        return false
    }

    /// Why a device query finds nothing: discovery only starts now.
    public static let discoveryStarting = "mDNS discovery starts now: the device is a fixed [device] host, so it was off; ask again in a few seconds"

    /// Stops the client; the app on the device keeps running. A later
    /// `start()` connects again (the session service restarted after a failure).
    public func stop() async {
        started = false
        await replaceClient(with: nil)
    }

    // MARK: Settings (live reload)

    /// Applies new settings without disturbing what they do not change: a
    /// new device target reconnects, new launch settings apply from the next
    /// launch and LOAD, presets apply at once; the cast session is kept.
    public func apply(_ newSettings: GatewaySettings) async {
        let old = settings
        settings = newSettings
        if old.cast.authentication != newSettings.cast.authentication || old.cast.trustAnchors != newSettings.cast.trustAnchors {
            authenticator = newSettings.cast.authentication == .off ? nil : makeAuthenticator(newSettings.cast.trustAnchors)
            // Applies from the next connection: the session in progress is not dropped for it.
            await client?.setDeviceAuthentication(policy: newSettings.cast.authentication, authenticator: authenticator)
        }
        if old.device != newSettings.device {
            target = Gateway.target(for: newSettings.device.target)
            logger.notice("device changed by the configuration: \(describe(target))")
            await reconcileTarget()
        }
        publish()
    }

    /// Records whether a service (`mqtt`) works (`problem` nil) or why not: shown in `status`.
    public func setServiceProblem(_ problem: String?, for service: String) {
        guard serviceProblems[service] != problem else { return }
        serviceProblems[service] = problem
        publish()
    }

    /// Records that a service failed (the service group's report), or with
    /// nil that it recovered: shown in `status`, on the error LED (code 8) and in the MQTT state.
    public func setServiceFailure(_ failure: String?, for service: String) {
        let failure = failure.map(shown)
        guard serviceFailures[service] != failure else { return }
        serviceFailures[service] = failure
        publish()
    }

    /// Shows (or with nil clears) why the kiosk loop cannot play (LED error 5).
    public func setKioskProblem(_ problem: String?) {
        guard kioskProblem != problem else { return }
        kioskProblem = problem
        publish()
    }

    /// Shows the kiosk's items and the one it plays (nil: no kiosk, `[kiosk]` is off).
    public func setKioskItems(_ items: KioskItems?) {
        let items = items.map { KioskItems(names: $0.names.map(shown), playing: $0.playing) }
        guard kioskItems != items else { return }
        kioskItems = items
        publish()
    }

    /// Shows (or with nil clears) what happened to the last A/B update.
    public func setUpdateReport(_ report: UpdateReport?) {
        guard updateReport != report else { return }
        updateReport = report
        publish()
    }

    /// Shows (or with nil clears) how an update from the fleet is going.
    public func setUpdateProgress(_ progress: UpdateProgress?) {
        guard updateProgress != progress else { return }
        updateProgress = progress
        publish()
    }

    /// The bundle the fleet announces now (nil: none).
    public func setUpdateOffer(_ offer: UpdateRequest?) {
        guard updateOffer != offer else { return }
        updateOffer = offer
        publish()
    }

    /// Shows (or with nil clears) a configuration problem: a reload that was refused.
    public func setConfigProblem(_ problem: String?) {
        guard configProblem != problem else { return }
        configProblem = problem
        publish()
    }

    private func describe(_ target: Target) -> String {
        switch target {
        case .none: "none"
        case .address(let host, let port): "\(host):\(port)"
        case .discovered(let query): "\"\(query)\""
        }
    }

    /// What launches and LOADs send: the configured app, and the credentials
    /// typed at runtime, else the configured ones. The gateway is their one
    /// owner; every request carries them, so a reload applies from the next one.
    var launchSettings: LaunchSettings {
        LaunchSettings(appID: settings.cast.appID, allowsAndroidReceiver: settings.cast.allowsAndroidReceiver,
                       credentials: typedCredentials ?? settings.cast.launchCredentials,
                       mediaCredentials: settings.cast.mediaCredentials)
    }

    /// Sets (or with nil clears) the launch credentials for later launches;
    /// they are kept for new connections too, until cleared or forgotten.
    public func setLaunchCredentials(_ credentials: LaunchCredentials?) {
        typedCredentials = .some(credentials)
    }

    /// Drops credentials typed at runtime (checkout): the configured ones apply again.
    public func forgetTypedCredentials() {
        typedCredentials = nil
    }

    // MARK: TV control

    /// Sets how `tv-on` and `tv-standby` reach the TV (the CEC source).
    public func setTVControl(_ control: (any TVControl)?) {
        tvControl = control
    }

    /// Whether TV power control (CEC) is set up.
    public var hasTVControl: Bool { tvControl != nil }

    /// Powers the TV on, puts it in standby or switches its input; throws when no CEC adapter is set up.
    func controlTV(_ action: Action) throws {
        guard let tvControl else {
            throw GatewayError(.unavailable, "TV control needs an HDMI-CEC adapter; none is set up ([cec] in the config)")
        }
        switch action {
        case .tvPowerOn: tvControl.powerOnTV(selecting: nil)
        case .tvStandby: tvControl.standbyTV()
        case .tvSelectInput(let address): tvControl.selectInput(address)
        default: break
        }
    }

    /// What the CEC bus says about the TV (nil: CEC is not running).
    public func setTVStatus(_ status: TVStatus?) {
        // The TV's name comes from the bus: shown as every output may show it.
        let status = status.map { status in
            var status = status
            status.osdName = status.osdName.map(shown)
            return status
        }
        guard tvStatus != status else { return }
        tvStatus = status
        publish()
    }

    /// Records whether an input source works (`problem` nil) or why not.
    public func setInputProblem(_ problem: String?, for source: String) {
        guard inputProblems[source] != problem else { return }
        inputProblems[source] = problem
        publish()
    }

    // MARK: Device selection

    /// Controls the device whose friendly name or id is `query` (from the table).
    public func use(_ query: String) async throws {
        let browsing = wantDiscovery()
        guard let device = discovery.device(matching: query) else {
            guard browsing else { throw GatewayError(.unavailable, Gateway.discoveryStarting) }
            let known = discovery.devices.map { "\"\($0.name)\"" }.joined(separator: ", ")
            throw GatewayError(.badArgument, "no device named \"\(query)\" on the network\(known.isEmpty ? "" : "; found: \(known)")")
        }
        logger.notice("now controlling \"\(device.name)\" at \(device.address)")
        target = .discovered(device.id)
        await reconcileTarget()
    }

    /// Moves to the next device of the table (sorted by name), wrapping around.
    func selectNextDevice() async throws {
        let browsing = wantDiscovery()
        let devices = discovery.devices
        guard !devices.isEmpty else {
            guard browsing else { throw GatewayError(.unavailable, Gateway.discoveryStarting) }
            throw GatewayError(.unavailable, discovery.problem.map { "no devices found: \($0)" } ?? "no Cast devices found on the network")
        }
        let current = devices.firstIndex { $0.address == clientState?.deviceAddress || targetMatches($0) }
        let next = devices[((current ?? -1) + 1) % devices.count]
        try await use(next.id)
    }

    private func targetMatches(_ device: CastDevice) -> Bool {
        if case .discovered(let query) = target { return device.matches(query) }
        return false
    }

    private func discoveryChanged(_ snapshot: DiscoverySnapshot) async {
        discovery = snapshot
        await reconcileTarget()
        publish()
    }

    /// Makes the client match the target: create, retarget or stop it.
    private func reconcileTarget() async {
        guard started else { return }
        switch target {
        case .none:
            await replaceClient(with: nil)
        case .address(let host, let port):
            await ensureClient(host: host, port: port)
        case .discovered(let query):
            wantDiscovery()
            if let device = discovery.device(matching: query) {
                await ensureClient(host: device.host, port: device.port)
            } else if client != nil {
                logger.notice("\"\(query)\" left the network; waiting for it to reappear")
                await replaceClient(with: nil)
            }
        }
        publish()
    }

    private func ensureClient(host: String, port: UInt16) async {
        if let client {
            let address = await client.configuration
            if address.host != host || address.port != port { await client.retarget(host: host, port: port) }
            return
        }
        let client = CastClient(
            configuration: CastClient.Configuration(
                host: host, port: port,
                senderInfo: ConnectionMessages.SenderInfo(userAgent: "cast-gateway/\(version)", version: version,
                                                          systemVersion: "Linux")),
            connector: connector, timeSource: timeSource)
        await client.setDeviceAuthentication(policy: settings.cast.authentication, authenticator: authenticator)
        await replaceClient(with: client)
    }

    private func replaceClient(with newClient: CastClient?) async {
        clientTask?.cancel()
        clientTask = nil
        if let old = client { await old.stop() }
        client = newClient
        clientState = nil
        appliedClientVersion = 0
        releaseCatchUpWaiters()
        guard let newClient else {
            publish()
            return
        }
        await newClient.start()
        let states = newClient.versionedStates()
        // Follows this client's snapshots until it is replaced: the task lives as long as the client does.
        clientTask = Task {
            for await snapshot in states {
                self.clientChanged(snapshot.value, version: snapshot.version, from: newClient)
            }
        }
    }

    // MARK: Waiting (one-shot commands)

    /// Waits until the device is connected, or fails with the reason it is not.
    public func waitUntilConnected(timeout: Duration) async throws {
        let client = try requireClient()
        try await waitFor(client, timeout: timeout, what: "connect to \(await client.configuration.address)") { state in
            if state.phase == .connected { return true }
            if case .waitingToReconnect = state.phase, let error = state.lastError { throw error }
            return false
        }
    }

    /// Waits until the running app's media status is known (or no app runs).
    public func waitUntilMediaKnown(timeout: Duration) async throws {
        let client = try requireClient()
        try await waitFor(client, timeout: timeout, what: "read the media status") { state in
            guard let application = state.application else { return true }
            return !application.supportsMedia || state.mediaKnown
        }
    }

    private func waitFor(_ client: CastClient, timeout: Duration, what: String,
                         until condition: @escaping @Sendable (CastClientState) throws -> Bool) async throws {
        try await Gateway.waitFor(gateway: self, client: client, timeSource: timeSource, timeout: timeout, what: what, until: condition)
    }

    /// Waits on the gateway's own applied state (the one path client state
    /// takes). Not isolated to the gateway: Swift 6.0.3's region checker
    /// crashes on a task group inside the actor whose child awaits the actor.
    private nonisolated static func waitFor(gateway: Gateway, client: CastClient, timeSource: any TimeSource, timeout: Duration,
                                            what: String, until condition: @escaping @Sendable (CastClientState) throws -> Bool) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in gateway.states() where try await gateway.appliedClientState(from: client, satisfies: condition) { return }
                throw CancellationError()
            }
            group.addTask {
                try await timeSource.sleep(for: timeout)
                throw GatewayError(.timeout, "could not \(what) within \(Int(timeout.seconds)) s")
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Whether the client state the gateway has applied (and published) is `client`'s and meets `condition`.
    private func appliedClientState(from client: CastClient, satisfies condition: @Sendable (CastClientState) throws -> Bool) throws -> Bool {
        guard self.client === client, let clientState else { return false }
        return try condition(clientState)
    }

    func requireClient() throws -> CastClient {
        if let client { return client }
        switch target {
        case .discovered(let query):
            var message = "\"\(query)\" has not been found on the network"
            if let problem = discovery.problem { message += " (\(problem))" }
            throw GatewayError(.noDevice, message)
        default:
            throw GatewayError(.noDevice, "no device to control: set [device] host, name or id (or use --device)")
        }
    }

    // MARK: State

    /// Applies a snapshot the client published. They arrive in order (a slow
    /// follower skips to the newest), so an applied state is never rolled back.
    private func clientChanged(_ snapshot: CastClientState, version: UInt64, from source: CastClient) {
        guard source === client, version > appliedClientVersion else { return }
        clientState = snapshot
        appliedClientVersion = version
        publish()
        let ready = catchUpWaiters.filter { $0.version <= version }
        catchUpWaiters.removeAll { $0.version <= version }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once the gateway has applied the client's snapshot that was
    /// newest when called: the state a request ended in is then the gateway's.
    /// (A replaced client's requests stop waiting: its snapshots no longer apply.)
    private func catchUp(with source: CastClient) async {
        let version = source.publishedVersion
        guard source === client, version > appliedClientVersion else { return }
        await withCheckedContinuation { catchUpWaiters.append((version, $0)) }
    }

    private func releaseCatchUpWaiters() {
        let waiters = catchUpWaiters
        catchUpWaiters.removeAll()
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// Records the outcome of an action (a failure is shown until the next
    /// success) once the gateway has applied the state the action ended in,
    /// so the state an action returns to is already current.
    func record(_ error: (any Error)?) async {
        if let client { await catchUp(with: client) }
        if let error {
            let code: String = switch error {
            case let error as CastError: error.code.rawValue
            case let error as GatewayError: error.code.rawValue
            default: "error"
            }
            actionError = GatewayState.Problem(code: code, message: shown("\(error)"))
        } else {
            actionError = nil
        }
        publish()
    }

    private func publish() {
        var state = GatewayState()
        state.inputProblems = inputProblems
        state.configProblem = configProblem
        state.update = updateReport
        state.updateProgress = updateProgress
        state.updateOffer = updateOffer
        state.serviceProblems = serviceProblems
        state.serviceFailures = serviceFailures
        state.kioskProblem = kioskProblem.map(shown)
        state.kioskItems = kioskItems
        state.devices = discovery.devices
        state.discoveryProblem = discovery.problem
        state.tv = tvStatus
        if let snapshot = clientState {
            state.deviceAddress = snapshot.deviceAddress
            state.deviceName = shown(discovery.devices.first { $0.address == snapshot.deviceAddress }?.name ?? snapshot.deviceAddress)
            switch snapshot.phase {
            case .idle, .connecting: state.link = .connecting
            case .connected: state.link = .connected
            case .waitingToReconnect(_, let retryIn): state.link = .reconnecting(retryInSeconds: retryIn.seconds)
            }
            state.appName = snapshot.application.map { shown($0.displayName) }
            state.appID = snapshot.application.map { shown($0.appID) }
            if let media = snapshot.media {
                state.player = switch media.playerState {
                case .playing: .playing
                case .paused: .paused
                case .buffering, .loading: .buffering
                case .idle, .other: .idle
                }
                state.title = (media.media?.metadata?.title ?? media.media?.contentID).map(shown)
                state.subtitle = media.media?.metadata?.subtitle.map(shown)
                state.position = media.currentTime
                state.positionTimestamp = snapshot.mediaUpdatedAt.seconds
                state.playbackRate = media.playbackRate
                state.duration = media.media?.duration
                state.contentID = media.media?.contentID
                state.mediaSessionID = media.mediaSessionID
                state.idleReason = media.playerState == .idle ? media.idleReason.map(shown) : nil
            } else if snapshot.application != nil {
                state.player = .idle
            }
            state.mediaKnown = snapshot.mediaKnown
            state.authentication = snapshot.authentication.summary
            if case .authenticated(let result) = snapshot.authentication { state.audioOnly = result.audioOnly }
            if case .failed(let error) = snapshot.authentication, error.code != .noTrustAnchors {
                state.authenticationProblem = shown(error.message)
            }
            state.receiverRunsApp = snapshot.receiver.map { $0.applications.contains { !$0.isIdleScreen } }
            state.volume = snapshot.receiver?.volume.level
            state.muted = snapshot.receiver?.volume.muted ?? false
            if let error = snapshot.lastError {
                state.lastError = GatewayState.Problem(code: error.code.rawValue, message: shown(error.message))
            }
        } else {
            switch target {
            case .none: state.link = .noDevice
            case .address(let host, let port):
                state.deviceAddress = "\(host):\(port)"
                state.deviceName = state.deviceAddress
                state.link = .connecting
            case .discovered(let query):
                state.deviceName = shown(query)
                state.link = client == nil ? .searching(query) : .connecting
            }
        }
        if let actionError { state.lastError = actionError }
        broadcaster.publish(state)
    }

    /// A string from the network (title, app name, device name, a receiver's
    /// reason) as every output may show it: control characters escaped, and
    /// at most `GatewayState.maximumTextLength` characters.
    private func shown(_ text: String) -> String {
        text.escapingControlCharacters(maximumLength: GatewayState.maximumTextLength)
    }
}
