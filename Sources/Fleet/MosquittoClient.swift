#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Dispatch
import Synchronization
import SystemSupport

/// `MQTTClient` over libmosquitto.
///
/// libmosquitto's network loop (`mosquitto_loop_forever`, in the library's
/// threaded mode) runs on a serial Dispatch queue of its own, one run per
/// connection; its callbacks only turn into `MQTTEvent`s. Every other call
/// into the library runs on `queue`, never on the cooperative pool: DNS,
/// the TCP connect and waiting for the loop to end may block.
///
/// Reconnecting is the caller's job (with backoff and jitter), not the
/// library's fixed delay: when a connection ends, the disconnect callback
/// marks it as ended on purpose, so the loop returns instead of retrying,
/// and the next `connect()` starts a fresh loop. (The loop is run here
/// rather than by `mosquitto_loop_start` because a failed TLS handshake
/// ends the library's loop without any callback; returning from
/// `mosquitto_loop_forever` is the one signal that always comes.)
public final class MosquittoClient: MQTTClient, @unchecked Sendable {
    /// What one client connects to and how.
    public struct Options: Sendable {
        public var broker: FleetSettings.Broker
        public var clientID: String
        /// true: the broker keeps subscriptions and queued QoS 1 messages while we are away.
        public var persistentSession: Bool
        public var keepalive: Int
        public var username: String?
        public var passwordFile: String?
        public var caFile: String?
        public var certFile: String?
        public var keyFile: String?
        /// The Last Will the broker publishes when the connection dies without a DISCONNECT.
        public var will: MQTTMessage?

        public init(broker: FleetSettings.Broker, clientID: String, persistentSession: Bool = true, keepalive: Int = 60,
                    username: String? = nil, passwordFile: String? = nil, caFile: String? = nil,
                    certFile: String? = nil, keyFile: String? = nil, will: MQTTMessage? = nil) {
            self.broker = broker
            self.clientID = clientID
            self.persistentSession = persistentSession
            self.keepalive = keepalive
            self.username = username
            self.passwordFile = passwordFile
            self.caFile = caFile
            self.certFile = certFile
            self.keyFile = keyFile
            self.will = will
        }
    }

    public let events: AsyncStream<MQTTEvent>
    public let options: Options
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    private let queue = DispatchQueue(label: "cast-gateway.mqtt")
    /// Runs `mosquitto_loop_forever`, one connection at a time.
    private let loopQueue = DispatchQueue(label: "cast-gateway.mqtt-loop")
    private let logger = Logger(label: "mqtt")
    /// Whether the current connection's end was already reported (by a
    /// callback, or by the loop returning): it is reported once.
    private let endReported = Mutex(false)
    // On `queue` only (callbacks touch only `continuation`, `options`, `logger` and `endReported`):
    private var handle: OpaquePointer?
    private var looping = false

    private static let libraryReady: Void = { _ = mosquitto_lib_init() }()

    public init(options: Options) {
        self.options = options
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
    }

    /// The fleet's client: persistent session, `offline` as Last Will.
    public convenience init(settings: FleetSettings) {
        self.init(options: Options(
            broker: settings.broker, clientID: settings.clientID, persistentSession: true, keepalive: settings.keepalive,
            username: settings.username, passwordFile: settings.passwordFile, caFile: settings.caFile,
            certFile: settings.certFile, keyFile: settings.keyFile,
            will: MQTTMessage(topic: settings.topics.availability, text: "offline", qos: 1, retain: true)))
    }

    deinit {
        if let handle {
            if looping {
                mosquitto_disconnect(handle)
                loopQueue.sync {}
            }
            mosquitto_destroy(handle)
        }
        continuation.finish()
    }

    // MARK: MQTTClient

    public func connect() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    try self.startAttempt()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    public func subscribe(_ filters: [String], qos: Int) {
        queue.async {
            guard let handle = self.handle, !filters.isEmpty else { return }
            let strings = filters.map { strdup($0) }
            defer { strings.forEach { free($0) } }
            let rc = strings.withUnsafeBufferPointer { pointers in
                mosquitto_subscribe_multiple(handle, nil, Int32(pointers.count), pointers.baseAddress, Int32(qos), 0, nil)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                self.logger.debug("subscribe to \(filters.joined(separator: ", ")) not sent: \(MosquittoClient.describe(rc))")
            }
        }
    }

    public func publish(_ message: MQTTMessage) {
        queue.async {
            guard let handle = self.handle else { return }
            self.send(message, on: handle)
        }
    }

    public func disconnect(after final: MQTTMessage?) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                if let handle = self.handle, self.looping {
                    if let final { self.send(final, on: handle) }
                    mosquitto_disconnect(handle)
                    self.loopQueue.sync {}  // the loop sends both, then returns
                    self.looping = false
                }
                continuation.resume()
            }
        }
    }

    // MARK: Connecting (on `queue`)

    private func startAttempt() throws(MQTTError) {
        dispatchPrecondition(condition: .onQueue(queue))
        MosquittoClient.libraryReady
        stopLoop()
        let handle: OpaquePointer
        if let existing = self.handle {
            handle = existing
        } else {
            handle = try makeHandle()
            self.handle = handle
        }
        let broker = options.broker

        // Read on every attempt: a fixed file is picked up without a restart.
        if let username = options.username {
            var password: String?
            if let path = options.passwordFile { password = try FleetSettings.readPassword(path) }
            let rc = mosquitto_username_pw_set(handle, username, password)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTError(.configuration, "username rejected by libmosquitto: \(MosquittoClient.describe(rc))")
            }
        }
        if broker.tls { try configureTLS(handle) }

        let rc = mosquitto_connect_async(handle, broker.host, Int32(broker.port), Int32(options.keepalive))
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw connectFailure(rc) }
        endReported.withLock { $0 = false }
        looping = true
        let context = UncheckedSendable(handle)
        // Weak: deinit (which ends the loop) must never run on loopQueue itself.
        loopQueue.async { [weak self] in
            let rc = mosquitto_loop_forever(context.value, -1, 1)
            self?.loopEnded(rc)
        }
    }

    private func configureTLS(_ handle: OpaquePointer) throws(MQTTError) {
        if let path = options.caFile { try FleetSettings.checkPEMFile(path, what: "CA file") }
        if let path = options.certFile { try FleetSettings.checkPEMFile(path, what: "client certificate") }
        if let path = options.keyFile { try FleetSettings.checkPEMFile(path, what: "client key") }
        if options.caFile == nil {
            _ = mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
        }
        let rc = mosquitto_tls_set(handle, options.caFile, nil, options.certFile, options.keyFile, nil)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(.tlsFiles, "TLS settings rejected (ca-file \(options.caFile ?? "system store"), cert-file \(options.certFile ?? "none"), key-file \(options.keyFile ?? "none")): \(MosquittoClient.describe(rc))")
        }
    }

    private func makeHandle() throws(MQTTError) -> OpaquePointer {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let handle = mosquitto_new(options.clientID, !options.persistentSession, context) else {
            throw MQTTError(.configuration, "libmosquitto cannot create a client with id '\(options.clientID)': \(String(cString: strerror(errno)))")
        }
        _ = mosquitto_threaded_set(handle, true)  // the loop runs on loopQueue while `queue` publishes
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        // Only reached if a disconnect ever slipped past the callback: the
        // library must never retry in lock-step on its own fixed delay.
        _ = mosquitto_reconnect_delay_set(handle, 3600, 3600, false)
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes {
                mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, Int32(will.qos), will.retain)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                logger.warning("Last Will on \(will.topic) not set: \(MosquittoClient.describe(rc))")
            }
        }
        mosquitto_connect_with_flags_callback_set(handle) { mosq, context, code, flags in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().connected(mosq, code: code, flags: flags)
        }
        mosquitto_disconnect_callback_set(handle) { mosq, context, code in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().disconnected(mosq, code: code)
        }
        mosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().received(message.pointee)
        }
        return handle
    }

    /// Ends a network thread left from the previous connection.
    private func stopLoop() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let handle, looping else { return }
        mosquitto_disconnect(handle)
        loopQueue.sync {}
        looping = false
    }

    private func send(_ message: MQTTMessage, on handle: OpaquePointer) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard message.payload.count <= Int(Int32.max) else { return }
        let rc = message.payload.withUnsafeBytes {
            mosquitto_publish(handle, nil, message.topic, Int32($0.count), $0.baseAddress, Int32(message.qos), message.retain)
        }
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            logger.debug("publish to \(message.topic) not sent: \(MosquittoClient.describe(rc))")
        }
    }

    // MARK: Callbacks (libmosquitto's network thread): events only

    private func connected(_ mosq: OpaquePointer?, code: Int32, flags: Int32) {
        guard code != 0 else {
            continuation.yield(.connected(sessionPresent: flags & 1 != 0))
            return
        }
        mosquitto_disconnect(mosq)  // the loop ends; the caller retries with backoff
        endReported.withLock { $0 = true }
        let reason = String(cString: mosquitto_connack_string(code))
        let hint = (code == 4 || code == 5) ? "; check username and password-file" : ""
        continuation.yield(.refused(MQTTError(.refused, "the MQTT broker \(options.broker) refused the connection: \(reason)\(hint)")))
    }

    private func disconnected(_ mosq: OpaquePointer?, code: Int32) {
        // Ends the loop instead of letting it reconnect by itself.
        mosquitto_disconnect(mosq)
        guard !endReported.withLock({ reported in defer { reported = true }; return reported }) else { return }
        let error = code == 0 ? nil
            : MQTTError(.connectionLost, "connection to the MQTT broker \(options.broker) lost: \(MosquittoClient.describe(code))")
        continuation.yield(.disconnected(error))
    }

    /// The loop returned (loopQueue): the end of the connection, if no callback said so.
    private func loopEnded(_ code: Int32) {
        guard !endReported.withLock({ reported in defer { reported = true }; return reported }) else { return }
        guard code != MOSQ_ERR_SUCCESS.rawValue else {
            continuation.yield(.disconnected(nil))
            return
        }
        continuation.yield(.disconnected(connectFailure(code)))
    }

    /// Why a connection could not be made, with what to check.
    private func connectFailure(_ code: Int32) -> MQTTError {
        let hint = code == MOSQ_ERR_TLS.rawValue
            ? "check that ca-file signs the broker's certificate and that the certificate names \(options.broker.host)"
            : "is it running and reachable?"
        return MQTTError(.unreachable, "cannot connect to the MQTT broker \(options.broker): \(MosquittoClient.describe(code)); \(hint)")
    }

    private func received(_ message: mosquitto_message) {
        guard let topic = message.topic, message.payloadlen >= 0 else { return }
        let payload: [UInt8] = message.payload.map {
            Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen)))
        } ?? []
        continuation.yield(.message(MQTTMessage(topic: String(cString: topic), payload: payload,
                                                qos: Int(message.qos), retain: message.retain)))
    }

    /// libmosquitto's text for `code`; for system errors, errno's.
    static func describe(_ code: Int32) -> String {
        if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(code)).trimmingTrailingPeriod()
    }
}

extension String {
    fileprivate func trimmingTrailingPeriod() -> String { hasSuffix(".") ? String(dropLast()) : self }
}
