import CastClient
import CastProtocol
import GatewayModel
import SystemSupport

/// The core: owns the Cast client, carries out actions from every input,
/// and publishes one `GatewayState` that every output renders.
public actor Gateway {
    public nonisolated let configuration: GatewayConfiguration
    public nonisolated let timeSource: any TimeSource
    let client: CastClient?
    let broadcaster = StateBroadcaster(GatewayState())
    let logger = Logger(label: "gateway")
    private var actionError: GatewayState.Problem?
    private var clientState: CastClientState?
    private var followTask: Task<Void, Never>?

    /// Builds the gateway. Only a `host:port` target can be used directly;
    /// friendly names and ids need mDNS discovery.
    public init(configuration: GatewayConfiguration, connector: @escaping CastClient.Connector,
                timeSource: any TimeSource = SystemTimeSource(), version: String = "0.1.0") {
        self.configuration = configuration
        self.timeSource = timeSource
        if case .address(let host, let port) = configuration.device {
            client = CastClient(
                configuration: CastClient.Configuration(
                    host: host, port: port, appID: configuration.appID,
                    allowsAndroidReceiver: configuration.allowsAndroidReceiver,
                    launchCredentials: configuration.credentials,
                    senderInfo: ConnectionMessages.SenderInfo(userAgent: "cast-gateway/\(version)", version: version,
                                                              systemVersion: "Linux")),
                connector: connector, timeSource: timeSource)
        } else {
            client = nil
        }
    }

    /// Snapshots of the gateway's state, starting with the current one.
    public nonisolated func states() -> AsyncStream<GatewayState> { broadcaster.subscribe() }

    public var state: GatewayState { broadcaster.current }

    /// Starts connecting to the device and following its state.
    public func start() async {
        guard followTask == nil else { return }
        switch configuration.device {
        case .none:
            logger.warning("no device configured: set [device] host in the config file")
        case .name(let name):
            logger.error("[device] name = \(name) needs mDNS discovery, which this build does not have yet; set [device] host = HOST[:PORT]")
        case .id(let id):
            logger.error("[device] id = \(id) needs mDNS discovery, which this build does not have yet; set [device] host = HOST[:PORT]")
        case .address:
            break
        }
        guard let client else {
            publish()
            return
        }
        await client.start()
        let states = client.states()
        followTask = Task {
            for await snapshot in states {
                self.clientChanged(snapshot)
            }
        }
    }

    /// Stops the client; the app on the device keeps running.
    public func stop() async {
        followTask?.cancel()
        followTask = nil
        await client?.stop()
    }

    /// Waits until the device is connected, or fails with the reason it is not.
    public func waitUntilConnected(timeout: Duration) async throws {
        let client = try requireClient()
        try await waitFor(client, timeout: timeout, what: "connect to \(client.configuration.address)") { state in
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
        let timeSource = self.timeSource
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await state in client.states() where try condition(state) { return }
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

    func requireClient() throws -> CastClient {
        guard let client else {
            throw GatewayError(.noDevice, "no device to control: set [device] host = HOST[:PORT] (or use --device)")
        }
        return client
    }

    // MARK: State

    private func clientChanged(_ snapshot: CastClientState) {
        clientState = snapshot
        publish()
    }

    /// Records the outcome of an action (a failure is shown until the next
    /// success) and takes the client's latest snapshot, so the state an action
    /// returns to is already current.
    func record(_ error: (any Error)?) async {
        if let client { clientState = await client.currentState }
        if let error {
            let code: String = switch error {
            case let error as CastError: error.code.rawValue
            case let error as GatewayError: error.code.rawValue
            default: "error"
            }
            actionError = GatewayState.Problem(code: code, message: "\(error)")
        } else {
            actionError = nil
        }
        publish()
    }

    private func publish() {
        var state = GatewayState()
        if let snapshot = clientState {
            state.deviceAddress = snapshot.deviceAddress
            state.deviceName = snapshot.deviceAddress
            switch snapshot.phase {
            case .idle, .connecting: state.link = .connecting
            case .connected: state.link = .connected
            case .waitingToReconnect(_, let retryIn): state.link = .reconnecting(retryInSeconds: retryIn.seconds)
            }
            state.appName = snapshot.application?.displayName
            state.appID = snapshot.application?.appID
            if let media = snapshot.media {
                state.player = switch media.playerState {
                case .playing: .playing
                case .paused: .paused
                case .buffering, .loading: .buffering
                case .idle, .other: .idle
                }
                state.title = media.media?.metadata?.title ?? media.media?.contentID
                state.subtitle = media.media?.metadata?.subtitle
                state.position = media.currentTime
                state.positionTimestamp = snapshot.mediaUpdatedAt.seconds
                state.playbackRate = media.playbackRate
                state.duration = media.media?.duration
            } else if snapshot.application != nil {
                state.player = .idle
            }
            state.volume = snapshot.receiver?.volume.level
            state.muted = snapshot.receiver?.volume.muted ?? false
            if let error = snapshot.lastError {
                state.lastError = GatewayState.Problem(code: error.code.rawValue, message: error.message)
            }
        } else if case .address(let host, let port) = configuration.device {
            state.deviceAddress = "\(host):\(port)"
            state.deviceName = state.deviceAddress
            state.link = .connecting
        }
        if let actionError { state.lastError = actionError }
        broadcaster.publish(state)
    }
}
