import CastProtocol
import JSON
import SystemSupport

/// One Cast v2 connection: frames in and out, virtual connections, heartbeat,
/// and requests matched to replies by request id.
///
/// Requests are registered before they are written, and every request ends:
/// with its reply, with an error when the link drops, or with a timeout. All
/// incoming JSON messages (replies included) are also delivered on `messages`
/// so that status trackers see every update. When the link ends for any
/// reason, `messages` finishes and `closeReason` tells why.
public actor CastChannel {
    public struct Configuration: Sendable {
        /// This sender's id, unique per process (e.g. `sender-3829164`).
        public var senderID: String
        public var senderInfo: ConnectionMessages.SenderInfo
        /// How often to PING the receiver.
        public var heartbeatInterval: Duration
        /// Silence after which the link is declared dead.
        public var deadAfter: Duration

        public init(senderID: String, senderInfo: ConnectionMessages.SenderInfo,
                    heartbeatInterval: Duration = .seconds(5), deadAfter: Duration = .seconds(15)) {
            self.senderID = senderID
            self.senderInfo = senderInfo
            self.heartbeatInterval = heartbeatInterval
            self.deadAfter = deadAfter
        }
    }

    /// An incoming JSON message with its envelope.
    public struct Inbound: Sendable {
        public let message: CastMessage
        public let json: JSONValue
        /// True when this message completed one of this channel's requests;
        /// the requester applies it, in program order.
        public let answeredRequest: Bool
        /// Its place in the order this channel received messages.
        public let arrival: UInt64
        public var reply: CastReply { CastReply(json: json, arrival: arrival) }
    }

    public let configuration: Configuration
    public nonisolated let messages: AsyncStream<Inbound>
    /// Why the channel closed; nil while open.
    public private(set) var closeReason: CastError?

    private let stream: any ByteStream
    let timeSource: any TimeSource
    private let messagesContinuation: AsyncStream<Inbound>.Continuation
    let logger = Logger(label: "channel")
    private var decoder = FrameDecoder()
    private var nextRequestID = 1
    /// JSON messages received so far: each one's arrival number.
    private var arrivals: UInt64 = 0
    private var pending: [Int: PendingRequest] = [:]
    private var lastReceived: Duration
    private var lastPingSent: Duration
    private var tasks: [Task<Void, Never>] = []
    private var connectedDestinations: Set<String> = []
    /// The device-auth exchange in flight (see CastChannel+DeviceAuth.swift).
    var deviceAuthExchange: DeviceAuthExchange?

    private struct PendingRequest {
        let description: String
        let isFinal: @Sendable (CastReply) -> Bool
        let continuation: CheckedContinuation<CastReply, any Error>
        let timeoutTask: Task<Void, Never>
    }

    public init(stream: any ByteStream, configuration: Configuration, timeSource: any TimeSource = SystemTimeSource()) {
        self.stream = stream
        self.configuration = configuration
        self.timeSource = timeSource
        (messages, messagesContinuation) = AsyncStream.makeStream(of: Inbound.self)
        lastReceived = timeSource.now
        lastPingSent = timeSource.now
    }

    /// Starts reading and the heartbeat. Call once.
    public func start() {
        // The channel owns these two loops and cancels them in close().
        tasks.append(Task { await self.readLoop() })
        tasks.append(Task { await self.heartbeatLoop() })
    }

    /// Whether the channel is still usable.
    public var isOpen: Bool { closeReason == nil }

    // MARK: Sending

    /// Sends a JSON message from this sender; fails if the channel is closed.
    /// `completion` runs when the frame is fully written to the socket.
    public func send(namespace: String, to destination: String, json: JSONValue,
                     completion: (@Sendable ((any Error)?) -> Void)? = nil) throws {
        try sendRaw(CastMessage(sourceID: configuration.senderID, destinationID: destination, namespace: namespace, json: json),
                    completion: completion)
    }

    func sendRaw(_ message: CastMessage, completion: (@Sendable ((any Error)?) -> Void)? = nil) throws {
        if let closeReason { throw closeReason }
        let frame: [UInt8]
        do {
            frame = try message.framed()
        } catch {
            throw CastError(.protocolError, "cannot send \(message.namespace) message: \(error)")
        }
        if logger.isEnabled(.trace) { logger.trace("send \(message)") }
        stream.enqueue(frame, completion: completion)
    }

    /// Opens a virtual connection to `destination` (`receiver-0` or an app's
    /// transport id) unless one is already open.
    public func connect(to destination: String) throws {
        guard !connectedDestinations.contains(destination) else { return }
        try send(namespace: CastNamespace.connection, to: destination, json: ConnectionMessages.connect(configuration.senderInfo))
        connectedDestinations.insert(destination)
    }

    /// Sends a request built for a fresh request id and waits for its final
    /// reply. `isFinal` lets progress messages (LAUNCH_STATUS) pass without
    /// completing the request.
    public func request(
        namespace: String,
        to destination: String,
        timeout: Duration,
        isFinal: @escaping @Sendable (CastReply) -> Bool = { _ in true },
        _ build: (Int) -> JSONValue
    ) async throws -> CastReply {
        if let closeReason { throw closeReason }
        // A receiver drops an app's messages from a sender that has not CONNECTed
        // to it, so the virtual connection always goes first (idempotent).
        if destination != CastEndpoint.platformReceiver { try connect(to: destination) }
        let requestID = nextRequestID
        nextRequestID = nextRequestID == Int(Int32.max) ? 1 : nextRequestID + 1
        let payload = build(requestID)
        let type = payload["type"]?.stringValue ?? "request"
        // A cancelled caller (a stop, a superseded join) stops waiting at once instead of
        // at the reply or the timeout. The hop into the actor is safe to leave: it finds
        // the request finished already, or finishes it (registration happens before any
        // suspension, so the hop always comes after it).
        return try await withTaskCancellationHandler {
            try await waitForReply(requestID: requestID, type: type, destination: destination, namespace: namespace,
                                   payload: payload, timeout: timeout, isFinal: isFinal)
        } onCancel: {
            Task { await self.cancel(requestID: requestID) }
        }
    }

    private func cancel(requestID: Int) {
        guard let request = pending[requestID] else { return }
        finish(requestID: requestID, with: .failure(CastError(.cancelled, "\(request.description) was given up (stopping)")))
    }

    private func waitForReply(requestID: Int, type: String, destination: String, namespace: String, payload: JSONValue,
                              timeout: Duration, isFinal: @escaping @Sendable (CastReply) -> Bool) async throws -> CastReply {
        try await withCheckedThrowingContinuation { continuation in
            // The request's timer: cancelled by the reply, the error or close().
            let timeoutTask = Task { [timeSource] in
                try? await timeSource.sleep(for: timeout)
                guard !Task.isCancelled else { return }
                self.expire(requestID: requestID, after: timeout)
            }
            // Registered before it is written, so even an instant reply finds it.
            pending[requestID] = PendingRequest(description: "\(type) #\(requestID) to \(destination)", isFinal: isFinal,
                                                continuation: continuation, timeoutTask: timeoutTask)
            do {
                try send(namespace: namespace, to: destination, json: payload)
            } catch {
                finish(requestID: requestID, with: .failure(error))
            }
        }
    }

    private func expire(requestID: Int, after timeout: Duration) {
        guard let request = pending[requestID] else { return }
        finish(requestID: requestID, with: .failure(CastError(
            .timeout, "\(request.description) got no reply within \(Int(timeout.seconds)) s")))
    }

    private func finish(requestID: Int, with result: Result<CastReply, any Error>) {
        guard let request = pending.removeValue(forKey: requestID) else { return }
        request.timeoutTask.cancel()
        request.continuation.resume(with: result)
    }

    /// Closes the channel: pending requests fail, `messages` finishes.
    ///
    /// A `.cancelled` reason is a close on purpose (the client stopped, the
    /// device moved): pending requests then end with `.cancelled` too, which
    /// callers take as "nobody needs the answer any more", not as a failure
    /// to report. Any other reason is a lost link: they end `.disconnected`.
    public func close(reason: CastError = CastError(.cancelled, "connection closed by the gateway")) {
        guard closeReason == nil else { return }
        let deliberate = reason.code == .cancelled
        if !deliberate {
            logger.warning("link to \(stream.peerDescription) lost: \(reason.message)")
        }
        closeReason = reason
        for (requestID, request) in pending {
            finish(requestID: requestID, with: .failure(deliberate
                ? CastError(.cancelled, "\(request.description) cancelled: \(reason.message)")
                : CastError(.disconnected, "\(request.description) failed: \(reason.message)")))
        }
        failDeviceAuthExchange(reason)
        for task in tasks { task.cancel() }
        messagesContinuation.finish()
        stream.close()
    }

    // MARK: Receiving

    private func readLoop() async {
        do {
            for try await chunk in stream.inbound {
                receive(chunk)
                if closeReason != nil { return }
            }
            close(reason: CastError(.disconnected, "\(stream.peerDescription) closed the connection"))
        } catch {
            close(reason: CastError(.disconnected, "connection to \(stream.peerDescription) failed: \(error)"))
        }
    }

    /// Feeds received bytes through the frame decoder. Malformed messages are
    /// logged and skipped; a broken frame length closes the link (framing is lost).
    func receive(_ bytes: [UInt8]) {
        lastReceived = timeSource.now
        decoder.append(bytes)
        while closeReason == nil {
            let message: CastMessage
            do {
                guard let next = try decoder.nextMessage() else { return }
                message = next
            } catch let error where error.code == .notCast {
                close(reason: CastError(.protocolError, "\(stream.peerDescription) does not speak Cast: \(error.detail);"
                    + " is it a Cast device, and is this its Cast port (usually 8009)?"))
                return
            } catch let error where error.losesFraming {
                close(reason: CastError(.protocolError, "\(stream.peerDescription) sent a bad frame: \(error)"))
                return
            } catch {
                logger.warning("skipped a malformed message from \(stream.peerDescription): \(error)")
                continue
            }
            handle(message)
        }
    }

    private func handle(_ message: CastMessage) {
        if logger.isEnabled(.trace) { logger.trace("recv \(message)") }
        guard case .string = message.payload else {
            receiveBinary(message)
            return
        }
        let json: JSONValue
        do {
            json = try message.jsonPayload()
        } catch {
            logger.warning("skipped a message from \(stream.peerDescription): \(error)")
            return
        }
        guard json.objectValue != nil else {
            logger.warning("skipped a non-object JSON payload on \(message.namespace)")
            return
        }
        arrivals += 1
        let reply = CastReply(json: json, arrival: arrivals)
        if message.namespace == CastNamespace.heartbeat {
            if reply.type == "PING" {
                try? sendRaw(message.reply(json: ConnectionMessages.pong))
            }
            return
        }
        // The peer closed its virtual connection: the next request to it must
        // CONNECT again. Forgotten here, in arrival order, before anyone hears of the CLOSE.
        if message.namespace == CastNamespace.connection, reply.type == "CLOSE" {
            connectedDestinations.remove(message.sourceID)
        }
        var answered = false
        if let requestID = reply.requestID {
            if let request = pending[requestID], request.isFinal(reply) {
                answered = true
                finish(requestID: requestID, with: .success(reply))
            } else if pending[requestID] == nil {
                logger.debug("reply \(reply.type) for unknown request #\(requestID) treated as a status update")
            }
        }
        messagesContinuation.yield(Inbound(message: message, json: json, answeredRequest: answered, arrival: arrivals))
    }

    // MARK: Heartbeat

    private func heartbeatLoop() async {
        while closeReason == nil {
            let now = timeSource.now
            let silence = now - lastReceived
            if silence >= configuration.deadAfter {
                close(reason: CastError(.disconnected, "no traffic from \(stream.peerDescription) for \(Int(silence.seconds)) s (heartbeat lost)"))
                return
            }
            if now - lastPingSent >= configuration.heartbeatInterval {
                lastPingSent = now
                try? sendRaw(CastMessage(sourceID: CastEndpoint.platformSender, destinationID: CastEndpoint.platformReceiver,
                                         namespace: CastNamespace.heartbeat, json: ConnectionMessages.ping))
            }
            let nextPing = lastPingSent + configuration.heartbeatInterval
            let deadline = lastReceived + configuration.deadAfter
            let wake = min(nextPing, deadline) - timeSource.now
            do {
                try await timeSource.sleep(for: max(wake, .milliseconds(1)))
            } catch {
                return
            }
        }
    }
}
