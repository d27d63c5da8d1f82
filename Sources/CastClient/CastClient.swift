import CastProtocol
import SystemSupport

/// A sender's connection to one Cast device, kept up for as long as the
/// client runs.
///
/// The client connects, opens the platform virtual connection, reads the
/// receiver status and follows the foreground app's media channel. When the
/// link drops (heartbeat lost, device rebooted, network gone) it reconnects
/// with exponential backoff and jitter, then *joins* the app that is running
/// instead of relaunching it. Every change is published as a
/// `CastClientState` snapshot on `states`.
public actor CastClient {
    /// Opens a byte stream to `host:port` (TLS in the daemon, in-memory in tests).
    public typealias Connector = @Sendable (_ host: String, _ port: UInt16) async throws -> any ByteStream

    public struct Configuration: Sendable {
        public var host: String
        public var port: UInt16
        public var language: String
        public var senderInfo: ConnectionMessages.SenderInfo
        public var requestTimeout: Duration
        public var launchTimeout: Duration
        public var heartbeatInterval: Duration
        public var deadAfter: Duration
        public var backoff: Backoff

        public init(host: String, port: UInt16 = 8009, language: String = "en-US",
                    senderInfo: ConnectionMessages.SenderInfo = ConnectionMessages.SenderInfo(
                        userAgent: "cast-gateway", version: "0.1.0", systemVersion: "Linux"),
                    requestTimeout: Duration = .seconds(10), launchTimeout: Duration = .seconds(30),
                    heartbeatInterval: Duration = .seconds(5), deadAfter: Duration = .seconds(15),
                    backoff: Backoff = Backoff()) {
            self.host = host
            self.port = port
            self.language = language
            self.senderInfo = senderInfo
            self.requestTimeout = requestTimeout
            self.launchTimeout = launchTimeout
            self.heartbeatInterval = heartbeatInterval
            self.deadAfter = deadAfter
            self.backoff = backoff
        }

        /// `host:port`, with IPv6 literals bracketed.
        public var address: String {
            host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }

    public private(set) var configuration: Configuration
    /// This process's sender id (`sender-<random>`), unique per process.
    public nonisolated let senderID: String
    public nonisolated let timeSource: any TimeSource
    let broadcaster: StateBroadcaster<CastClientState>
    let logger = Logger(label: "cast")

    private let connector: Connector
    private var runTask: Task<Void, Never>?
    private var backoffSleep: Task<Void, Never>?
    /// Joining the followed app's media channel (see `follow`); ended with its channel.
    private var joinTask: Task<Void, Never>?
    var channel: CastChannel?
    var deviceAuth = DeviceAuthSettings()
    /// The app session and media when the link was lost (shown again on rejoining it).
    var mediaBeforeLoss: (sessionID: String, media: MediaStatus)?
    /// Arrival numbers of the newest statuses applied on this channel: a reply
    /// resumes its requester after the message loop may have applied a newer
    /// broadcast, and must not undo it.
    var newestReceiverStatus: UInt64 = 0
    var newestMediaStatus: UInt64 = 0
    /// Told every published snapshot, in order: subscribers see only the
    /// newest, so tests that check each snapshot is whole watch here.
    private var snapshotObserver: (@Sendable (CastClientState) -> Void)?

    func observeSnapshots(_ observer: @escaping @Sendable (CastClientState) -> Void) {
        snapshotObserver = observer
    }

    var state: CastClientState {
        didSet {
            guard state != oldValue else { return }
            broadcaster.publish(state)
            snapshotObserver?(state)
        }
    }

    public init(configuration: Configuration, connector: @escaping Connector, timeSource: any TimeSource = SystemTimeSource()) {
        self.configuration = configuration
        self.connector = connector
        self.timeSource = timeSource
        senderID = "sender-\(UInt32.random(in: 1...999_999_999))"
        let initial = CastClientState(deviceAddress: configuration.address)
        state = initial
        broadcaster = StateBroadcaster(initial)
    }

    /// Snapshots of the client's state, starting with the current one.
    public nonisolated func states() -> AsyncStream<CastClientState> { broadcaster.subscribe() }

    /// Numbered snapshots, starting with the current one: a follower that
    /// applies them knows how far it has caught up (`publishedVersion`).
    public nonisolated func versionedStates() -> AsyncStream<StateBroadcaster<CastClientState>.Versioned> {
        broadcaster.subscribeVersioned()
    }

    /// The number of the newest snapshot published, readable without entering
    /// the actor: after a request returns, its final state has this number or less.
    public nonisolated var publishedVersion: UInt64 { broadcaster.version }

    /// The current snapshot.
    public var currentState: CastClientState { state }

    /// Starts connecting (and reconnecting) in the background.
    public func start() {
        guard runTask == nil else { return }
        // The connection loop lives as long as the client; stop() cancels it.
        runTask = Task { await self.run() }
    }

    /// Stops the client and closes the connection (the running app is left alone).
    public func stop() async {
        runTask?.cancel()
        backoffSleep?.cancel()
        await channel?.close()
        await runTask?.value
        runTask = nil
        await endJoining()
        state.phase = .idle
    }

    /// Points the client at a new address (a device that moved) and reconnects now.
    public func retarget(host: String, port: UInt16) async {
        guard host != configuration.host || port != configuration.port else { return }
        logger.notice("device moved: \(configuration.address) -> \(host):\(port)")
        configuration.host = host
        configuration.port = port
        state.deviceAddress = configuration.address
        configuration.backoff.reset()
        await channel?.close(reason: CastError(.cancelled, "device moved"))
        backoffSleep?.cancel()
    }

    /// Skips the current backoff wait (e.g. the device was seen again).
    public func reconnectNow() {
        backoffSleep?.cancel()
    }

    // MARK: Connection loop

    private func run() async {
        var backoff = configuration.backoff
        while !Task.isCancelled {
            state.phase = .connecting
            let address = configuration.address
            // Why this connection ended, shown with the phase that follows it.
            var ending: CastError?
            do {
                let stream = try await connector(configuration.host, configuration.port)
                let channel = CastChannel(
                    stream: stream,
                    configuration: CastChannel.Configuration(
                        senderID: senderID, senderInfo: configuration.senderInfo,
                        heartbeatInterval: configuration.heartbeatInterval, deadAfter: configuration.deadAfter),
                    timeSource: timeSource)
                self.channel = channel
                newestReceiverStatus = 0
                newestMediaStatus = 0
                await channel.start()
                if Task.isCancelled {
                    await channel.close()
                    break
                }
                await authenticateDevice(on: channel, peerCertificate: stream.peerCertificate)
                try await channel.connect(to: CastEndpoint.platformReceiver)
                let reply = try await channel.request(namespace: CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                                      timeout: configuration.requestTimeout) {
                    ReceiverRequest.getStatus.json(requestID: $0)
                }
                backoff.reset()
                logger.info("connected to \(address)")
                // Status first: no snapshot may say "connected" without the apps.
                apply(receiverStatus: ReceiverStatus(message: reply.body), arrival: reply.arrival, on: channel)
                state.phase = .connected
                state.lastError = nil
                for await inbound in channel.messages {
                    handle(inbound, on: channel)
                }
                let reason = await channel.closeReason
                if let reason, reason.code != .cancelled { ending = reason }
            } catch let error as CastError where error.code == .cancelled {
                // Closed on purpose while connecting (stop, retarget): nothing failed.
                logger.debug("connecting to \(address) stopped: \(error.message)")
                await channel?.close()
            } catch {
                // A request that failed because the link closed says less than why the link closed.
                let closeReason = await channel?.closeReason
                let failure = closeReason.flatMap { $0.code == .cancelled ? nil : $0 }
                    ?? (error as? CastError) ?? CastError(.deviceUnavailable, "cannot reach \(address): \(error)")
                // The owner shows this as its OFFLINE status with the reason; a repeat is only worth debug.
                logger.log(failure.message == state.lastError?.message ? .debug : .info,
                           "connection to \(address) failed: \(failure.message)")
                ending = failure
                await channel?.close()
            }
            channel = nil
            // The channel is closed, so a join under way fails at once; it ends before the next channel.
            await endJoining()
            if let application = state.application, let media = state.media {
                mediaBeforeLoss = (application.sessionID, media)
            }
            // One snapshot: no app, nothing known of its media (as after follow(nil)),
            // the reason and the new phase together. "Connected with no app" would
            // read as the app having stopped (the kiosk would take the screen back).
            let delay: Duration? = Task.isCancelled ? nil : backoff.nextDelay()
            var lost = state
            lost.application = nil
            lost.media = nil
            lost.mediaKnown = false
            if let ending { lost.lastError = ending }
            lost.phase = delay.map { .waitingToReconnect(attempt: backoff.attempts, retryIn: $0) } ?? .idle
            state = lost
            guard let delay else { break }
            // Fixed as the phase is published: the sleeping task may start later.
            let retryAt = timeSource.now + delay
            logger.debug("reconnecting to \(configuration.address) in \(delay.secondsText)")
            // A separate task so `reconnectNow()` can cut the wait short;
            // cancelling the client cancels it too, and the loop awaits it.
            let sleeper = Task { [timeSource] in _ = try? await timeSource.sleep(until: retryAt) }
            backoffSleep = sleeper
            await withTaskCancellationHandler {
                await sleeper.value
            } onCancel: {
                sleeper.cancel()
            }
            backoffSleep = nil
        }
    }

    /// The transport whose media channel is followed: the followed app's.
    var followedTransportID: String? { state.application?.transportID }

    /// The channel, if connected; otherwise a clear `notConnected` error.
    func connectedChannel() throws -> CastChannel {
        guard let channel, state.phase == .connected else {
            var message = "not connected to \(configuration.address)"
            if case .waitingToReconnect(_, let retryIn) = state.phase {
                message += " (reconnecting in \(retryIn.secondsText))"
            }
            if let lastError = state.lastError { message += ": \(lastError.message)" }
            throw CastError(.notConnected, message)
        }
        try requireAuthenticated()
        return channel
    }

    // MARK: Incoming messages

    func handle(_ inbound: CastChannel.Inbound, on channel: CastChannel) {
        // A reply to our own request is applied by the code that sent it;
        // applying it here too could land after a newer change and undo it.
        guard !inbound.answeredRequest else { return }
        let reply = inbound.reply
        switch inbound.message.namespace {
        case CastNamespace.receiver:
            if reply.type == "RECEIVER_STATUS" {
                apply(receiverStatus: ReceiverStatus(message: inbound.json), arrival: inbound.arrival, on: channel)
            }
        case CastNamespace.media:
            guard inbound.message.sourceID == followedTransportID else { return }
            if reply.type == "MEDIA_STATUS" {
                apply(mediaStatus: MediaStatus.entries(message: inbound.json), arrival: inbound.arrival)
            } else if reply.requestID == nil {
                logger.info("receiver reported \(reply.type)\(reply.reason.map { " (\($0))" } ?? "")")
            }
        case CastNamespace.connection:
            if reply.type == "CLOSE", inbound.message.sourceID == followedTransportID {
                logger.notice("\(state.application?.displayName ?? "the app") was closed on the receiver")
                // (The channel has already forgotten the virtual connection.)
                var closed = state  // as after follow(nil)
                closed.application = nil
                closed.media = nil
                closed.mediaKnown = false
                state = closed
            }
        default:
            break
        }
    }

    func apply(receiverStatus status: ReceiverStatus, arrival: UInt64, on channel: CastChannel) {
        guard arrival >= newestReceiverStatus else {
            logger.debug("skipped a receiver status overtaken by a newer one")
            return
        }
        newestReceiverStatus = arrival
        let active = status.activeApplication
        if active?.transportID != followedTransportID {
            follow(active, on: channel, receiver: status)
        } else {
            // One snapshot: nobody sees the new receiver status with the old application.
            var next = state
            next.receiver = status
            if let active { next.application = active }
            state = next
        }
    }

    /// Joins `application`'s media channel (or leaves when nil): CONNECT to
    /// its transport id and ask for the media status. Joining, not launching,
    /// is what keeps a reconnect from interrupting playback.
    /// The receiver status that named the application, when there is one, is
    /// applied in the same snapshot: each published state is whole (a new app
    /// never shows with the old app's media or `mediaKnown`).
    func follow(_ application: ReceiverApplication?, on channel: CastChannel, receiver: ReceiverStatus? = nil) {
        // Rejoining the session the link was lost in: its last media stands
        // until the receiver answers, so a reconnect does not flash IDLE.
        let rejoined = mediaBeforeLoss.flatMap { $0.sessionID == application?.sessionID ? $0.media : nil }
        mediaBeforeLoss = nil
        var next = state
        if let receiver { next.receiver = receiver }
        next.application = application
        next.media = rejoined
        next.mediaKnown = false
        state = next
        joinTask?.cancel()  // superseded: it applies nothing any more
        joinTask = nil
        // A status that arrives on a channel already given up (a reply after stop) starts nothing.
        guard let application, application.supportsMedia, channel === self.channel else { return }
        logger.info("joining \(application.displayName) (\(application.appID))")
        let transportID = application.transportID
        let timeout = configuration.requestTimeout
        // Joining runs beside the message loop (it waits for replies the loop
        // delivers); its requests time out. Owned by `joinTask`: the loop ends
        // it with the channel, stop() awaits it.
        joinTask = Task {
            do {
                try await channel.connect(to: transportID)
                let reply = try await channel.request(namespace: CastNamespace.media, to: transportID, timeout: timeout) {
                    MediaRequest.getStatus(mediaSessionID: nil).json(requestID: $0)
                }
                if !Task.isCancelled, self.channel === channel, self.followedTransportID == transportID,
                   reply.type == "MEDIA_STATUS" {
                    self.apply(mediaStatus: MediaStatus.entries(message: reply.body), arrival: reply.arrival)
                }
            } catch let error as CastError where error.code == .cancelled {
                self.logger.debug("stopped reading the media status of \(application.displayName): \(error)")
            } catch {
                self.logger.warning("cannot read the media status of \(application.displayName): \(error)")
            }
        }
    }

    /// Ends the join under way: its channel is closed or closing, so its request fails at once.
    private func endJoining() async {
        guard let join = joinTask else { return }
        joinTask = nil
        join.cancel()
        await join.value
    }

    func apply(mediaStatus entries: [MediaStatus], arrival: UInt64) {
        guard arrival >= newestMediaStatus else {
            logger.debug("skipped a media status overtaken by a newer one")
            return
        }
        newestMediaStatus = arrival
        // One snapshot: "known" and the media it knows arrive together.
        var next = state
        next.mediaKnown = true
        if var latest = entries.first {
            if let previous = state.media, previous.mediaSessionID == latest.mediaSessionID {
                if latest.media == nil { latest.media = previous.media }
                if latest.items == nil { latest.items = previous.items }
            }
            next.mediaUpdatedAt = timeSource.now
            next.media = latest
        } else {
            next.media = nil
        }
        state = next
    }
}
