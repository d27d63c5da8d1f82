#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import CMosquittoShim
import Dispatch
import Synchronization
import SystemSupport

/// `MQTTClient` over libmosquitto.
///
/// libmosquitto's network loop (`mosquitto_loop`, which blocks in pselect
/// until the socket, the library's wake-up pipe or a keepalive is due, in
/// the library's threaded mode) runs on a serial Dispatch queue of its own,
/// one run per connection; its callbacks only turn into `MQTTEvent`s. Every
/// other call into the library runs on `queue`, never on the cooperative
/// pool: DNS, the TCP connect and waiting for the loop to end may block.
///
/// Reconnecting is the caller's job (with backoff and jitter), not the
/// library's fixed delay: when a connection ends, the disconnect callback
/// marks it as ended on purpose, so the loop returns instead of retrying,
/// and the next `connect()` starts a fresh loop. The loop is ours rather
/// than `mosquitto_loop_forever` or `mosquitto_loop_start` because (in
/// libmosquitto 2.0) a failed TLS handshake ends the library's loop without
/// any callback, and an asynchronous TLS connect to a port that refuses it
/// is never noticed: the library's loop spins on the failed socket and
/// ignores a disconnect. Ours checks the socket's pending error after each
/// pass, and ends within `stopGrace` of being asked, whatever the library does.
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
        /// The largest packet the broker may send us (MQTT 5 Maximum Packet
        /// Size): it drops larger messages instead of sending them, so a huge
        /// publish never reaches this process's memory.
        public var maximumPacketSize: UInt32 = MosquittoClient.defaultMaximumPacketSize

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
    /// Runs the network loop, one connection at a time.
    private let loopQueue = DispatchQueue(label: "cast-gateway.mqtt-loop")
    /// Shared with the loop, which holds no reference to the client (its
    /// deinit ends the loop and must never run on loopQueue).
    private let loopControl = LoopControl()
    /// How long a loop asked to end may still send what is queued (`offline`, DISCONNECT).
    static let stopGrace: Duration = .seconds(2)
    private let logger = Logger(label: "mqtt")
    /// Whether the current connection's end was already reported (by a
    /// callback, or by the loop returning): it is reported once.
    private let endReported = Mutex(false)
    /// Whether the current connection got a CONNACK: an end before it means the peer is no MQTT broker.
    private let connackSeen = Mutex(false)
    // On `queue` only (callbacks touch only `continuation`, `options`, `logger` and `endReported`):
    private var handle: OpaquePointer?
    private var looping = false

    /// Loads libmosquitto on first use (a gateway without [mqtt] never maps
    /// it; a failure is tried again at the next attempt, so installing it
    /// needs no restart) and initialises it once.
    private static func loadLibrary() throws(MQTTError) {
        var text = [CChar](repeating: 0, count: 320)
        guard cg_mosquitto_load(&text, text.count) == 1 else {
            throw MQTTError(.library, "\(String(nullTerminated: text)) or remove [mqtt]")
        }
        libraryReady
    }

    private static let libraryReady: Void = { _ = cg_mosquitto_lib_init() }()

    /// Commands are at most 4 KiB; 64 KiB leaves room for topic and
    /// properties, and a 4-64 KiB payload still gets an honest reply.
    public static let defaultMaximumPacketSize: UInt32 = 64 * 1024
    /// MQTT 5 reason code: another connection with our client id took the session over.
    static let sessionTakenOver: Int32 = 0x8E
    // MQTT 5 property identifiers (mqtt_protocol.h, which the module does not import).
    static let propertySessionExpiryInterval: Int32 = 0x11
    static let propertyMaximumPacketSize: Int32 = 0x27
    // <netinet/tcp.h>: TCP_INFO and the tcpi_state values of a dead connection.
    static let ipprotoTCP = Int32(IPPROTO_TCP)
    static let tcpInfo: Int32 = 11
    static let tcpClose: UInt8 = 7
    static let tcpCloseWait: UInt8 = 8

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
                // The stop is asked for before the wake-up, so the woken loop sees it.
                loopControl.requestStop()
                cg_mosquitto_disconnect(handle)
                loopQueue.sync {}
            }
            cg_mosquitto_destroy(handle)
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
                cg_mosquitto_subscribe_multiple(handle, nil, Int32(pointers.count), pointers.baseAddress, Int32(qos), 0, nil)
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
                    // The stop is asked for before the wake-up, so the woken loop sees it.
                    self.loopControl.requestStop()
                    cg_mosquitto_disconnect(handle)
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
        try MosquittoClient.loadLibrary()
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
            let rc = cg_mosquitto_username_pw_set(handle, username, password)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTError(.configuration, "username rejected by libmosquitto: \(MosquittoClient.describe(rc))")
            }
        }
        if broker.tls { try configureTLS(handle) }

        let rc = cg_mosquitto_connect_async(handle, broker.host, Int32(broker.port), Int32(options.keepalive))
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw connectFailure(rc) }
        endReported.withLock { $0 = false }
        connackSeen.withLock { $0 = false }
        looping = true
        loopControl.reset()
        let context = UncheckedSendable(handle), control = loopControl, keepalive = options.keepalive
        // Weak: deinit (which ends the loop) must never run on loopQueue itself.
        loopQueue.async { [weak self] in
            let (rc, lostErrno) = MosquittoClient.runLoop(context.value, control: control, keepalive: keepalive)
            self?.loopEnded(rc, errno: lostErrno)
        }
    }

    private func configureTLS(_ handle: OpaquePointer) throws(MQTTError) {
        if let path = options.caFile { try FleetSettings.checkPEMFile(path, what: "CA file") }
        if let path = options.certFile { try FleetSettings.checkPEMFile(path, what: "client certificate") }
        if let path = options.keyFile { try FleetSettings.checkPEMFile(path, what: "client key") }
        if options.caFile == nil {
            _ = cg_mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
        }
        let rc = cg_mosquitto_tls_set(handle, options.caFile, nil, options.certFile, options.keyFile, nil)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(.tlsFiles, "TLS settings rejected (ca-file \(options.caFile ?? "system store"), cert-file \(options.certFile ?? "none"), key-file \(options.keyFile ?? "none")): \(MosquittoClient.describe(rc))")
        }
    }

    private func makeHandle() throws(MQTTError) -> OpaquePointer {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let handle = cg_mosquitto_new(options.clientID, !options.persistentSession, context) else {
            throw MQTTError(.configuration, "libmosquitto cannot create a client with id '\(options.clientID)': \(String(cString: strerror(errno)))")
        }
        _ = cg_mosquitto_threaded_set(handle, true)  // the loop runs on loopQueue while `queue` publishes
        // MQTT 5: the broker honours our Maximum Packet Size and says why it
        // disconnects us (a session taken over by a box with the same room).
        _ = cg_mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
        _ = cg_mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        // Only reached if a disconnect ever slipped past the callback: the
        // library must never retry in lock-step on its own fixed delay.
        _ = cg_mosquitto_reconnect_delay_set(handle, 3600, 3600, false)
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes {
                cg_mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, Int32(will.qos), will.retain)
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                logger.warning("Last Will on \(will.topic) not set: \(MosquittoClient.describe(rc))")
            }
        }
        try setConnectProperties(handle)
        cg_mosquitto_connect_with_flags_callback_set(handle) { mosq, context, code, flags in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().connected(mosq, code: code, flags: flags)
        }
        cg_mosquitto_disconnect_callback_set(handle) { mosq, context, code in
            guard let context else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().disconnected(mosq, code: code)
        }
        cg_mosquitto_message_callback_set(handle) { _, context, message in
            guard let context, let message else { return }
            Unmanaged<MosquittoClient>.fromOpaque(context).takeUnretainedValue().received(message.pointee)
        }
        return handle
    }

    /// CONNECT properties for every later `mosquitto_connect_async`.
    /// libmosquitto 2.0 has no asynchronous connect that takes properties;
    /// `mosquitto_connect_bind_v5` stores them before it checks the host, so
    /// with no host it keeps them and returns MOSQ_ERR_INVAL without any
    /// network I/O (the same in 2.0.11, bookworm, and 2.0.2x, trixie).
    private func setConnectProperties(_ handle: OpaquePointer) throws(MQTTError) {
        var properties: OpaquePointer?
        defer { cg_mosquitto_property_free_all(&properties) }
        // The persistent session outlives a disconnect only with an expiry interval in MQTT 5 (max: never expires, as in 3.1.1).
        let expiry: UInt32 = options.persistentSession ? UInt32.max : 0
        guard cg_mosquitto_property_add_int32(&properties, MosquittoClient.propertySessionExpiryInterval, expiry) == MOSQ_ERR_SUCCESS.rawValue,
              cg_mosquitto_property_add_int32(&properties, MosquittoClient.propertyMaximumPacketSize, options.maximumPacketSize) == MOSQ_ERR_SUCCESS.rawValue
        else { throw MQTTError(.configuration, "libmosquitto cannot build the MQTT 5 CONNECT properties") }
        let rc = cg_mosquitto_connect_bind_v5(handle, nil, 0, Int32(options.keepalive), nil, properties)
        guard rc == MOSQ_ERR_INVAL.rawValue || rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError(.configuration, "libmosquitto rejected the MQTT 5 CONNECT properties: \(MosquittoClient.describe(rc))")
        }
    }

    /// Ends a network thread left from the previous connection.
    private func stopLoop() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let handle, looping else { return }
        // The stop is asked for before the wake-up, so the woken loop sees it.
        loopControl.requestStop()
        cg_mosquitto_disconnect(handle)
        loopQueue.sync {}
        looping = false
    }

    /// One connection's network loop (on loopQueue): returns libmosquitto's
    /// code and errno once the connection is gone, or once asked to stop and
    /// `stopGrace` has passed. Each pass blocks in pselect; none spins.
    private static func runLoop(_ handle: OpaquePointer, control: LoopControl, keepalive: Int) -> (Int32, Int32) {
        var dead = 0
        while true {
            var timeout = Int32(clamping: keepalive * 1000)  // the library shortens it for keepalive pings
            if let deadline = control.stopDeadline {
                guard ContinuousClock.now < deadline else { return (MOSQ_ERR_SUCCESS.rawValue, 0) }
                timeout = 100
            }
            let rc = cg_mosquitto_loop(handle, timeout, 1)
            let number = errno
            guard rc == MOSQ_ERR_SUCCESS.rawValue else { return (rc, number) }
            // A connect that failed without libmosquitto seeing it (TLS: it
            // retries the handshake on the dead socket at every pass). Twice
            // in a row, so the library had a whole pass to notice itself.
            let socket = cg_mosquitto_socket(handle)
            if socket >= 0, let end = deadSocket(socket) {
                dead += 1
                if dead >= 2 { return end }
            } else {
                dead = 0
            }
        }
    }

    /// How a socket libmosquitto still holds has ended, or nil while it lives:
    /// its pending error, or its TCP state (closed: refused or reset; close-wait: the peer hung up).
    private static func deadSocket(_ socket: Int32) -> (Int32, Int32)? {
        var pending: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(socket, SOL_SOCKET, SO_ERROR, &pending, &length) == 0, pending != 0 {
            return (MOSQ_ERR_ERRNO.rawValue, pending)
        }
        var info = [UInt8](repeating: 0, count: 8)  // struct tcp_info begins with tcpi_state
        length = socklen_t(info.count)
        guard getsockopt(socket, MosquittoClient.ipprotoTCP, MosquittoClient.tcpInfo, &info, &length) == 0, length >= 1 else { return nil }
        switch info[0] {
        case MosquittoClient.tcpClose: return (MOSQ_ERR_ERRNO.rawValue, ECONNREFUSED)
        case MosquittoClient.tcpCloseWait: return (MOSQ_ERR_CONN_LOST.rawValue, 0)
        default: return nil
        }
    }

    private func send(_ message: MQTTMessage, on handle: OpaquePointer) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard message.payload.count <= Int(Int32.max) else { return }
        let rc = message.payload.withUnsafeBytes {
            cg_mosquitto_publish(handle, nil, message.topic, Int32($0.count), $0.baseAddress, Int32(message.qos), message.retain)
        }
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            logger.debug("publish to \(message.topic) not sent: \(MosquittoClient.describe(rc))")
        }
    }

    // MARK: Callbacks (libmosquitto's network thread): events only

    private func connected(_ mosq: OpaquePointer?, code: Int32, flags: Int32) {
        connackSeen.withLock { $0 = true }
        guard code != 0 else {
            continuation.yield(.connected(sessionPresent: flags & 1 != 0))
            return
        }
        cg_mosquitto_disconnect(mosq)  // the loop ends; the caller retries with backoff
        endReported.withLock { $0 = true }
        continuation.yield(.refused(refusal(code)))
    }

    /// A CONNACK that is not 0, in words (MQTT 5 reason codes; 1-5 from a 3.1.1 broker).
    private func refusal(_ code: Int32) -> MQTTError {
        let broker = options.broker
        switch code {
        case 4, 5, 0x86, 0x87, 0x8C:
            return MQTTError(.refused, "the MQTT broker \(broker) refused the connection: not authorised (\(MosquittoClient.reason(code))); check username and password-file")
        case 1, 0x84:
            return MQTTError(.refused, "the MQTT broker \(broker) refused the connection: it does not speak MQTT 5, which the gateway needs (mosquitto 1.6 or later, or any current broker)")
        default:
            return MQTTError(.refused, "the MQTT broker \(broker) refused the connection: \(MosquittoClient.reason(code))")
        }
    }

    private func disconnected(_ mosq: OpaquePointer?, code: Int32) {
        let lostErrno = errno
        // Ends the loop instead of letting it reconnect by itself.
        cg_mosquitto_disconnect(mosq)
        guard !endReported.withLock({ reported in defer { reported = true }; return reported }) else { return }
        continuation.yield(.disconnected(code == 0 ? nil : ended(code, errno: lostErrno)))
    }

    /// Why a connection ended, from libmosquitto's code (or the broker's MQTT 5 reason code).
    private func ended(_ code: Int32, errno lostErrno: Int32) -> MQTTError {
        let broker = options.broker
        if code == MosquittoClient.sessionTakenOver {
            return MQTTError(.sessionTakenOver, "another MQTT client connected to \(broker) with the same client id \(options.clientID) and took over this connection")
        }
        if code >= 0x80 {  // a DISCONNECT from the broker, with its reason
            return MQTTError(.brokerDisconnected, "the MQTT broker \(broker) disconnected the gateway: \(MosquittoClient.reason(code))")
        }
        // Closed before any CONNACK: whatever listens there did not answer MQTT (or refused our TLS).
        let closedEarly = code == MOSQ_ERR_CONN_LOST.rawValue || code == MOSQ_ERR_PROTOCOL.rawValue || code == MOSQ_ERR_TLS.rawValue
            || (code == MOSQ_ERR_ERRNO.rawValue && [0, EPROTO, EPIPE, ECONNRESET].contains(lostErrno))
        if closedEarly, !connackSeen.withLock({ $0 }) {
            return broker.tls ? tlsFailure() : notMQTT()
        }
        let what = code == MOSQ_ERR_ERRNO.rawValue ? MosquittoClient.errnoText(lostErrno) : MosquittoClient.describe(code)
        return MQTTError(.connectionLost, "connection to the MQTT broker \(broker) lost: \(what)")
    }

    /// The TLS handshake failed (libmosquitto reports it as EPROTO).
    private func tlsFailure() -> MQTTError {
        MQTTError(.unreachable, "the TLS connection to the MQTT broker \(options.broker) ended before the broker answered the MQTT CONNECT: it refused the TLS handshake, or its certificate is not trusted, or no MQTT broker listens there; check that ca-file (\(options.caFile ?? "system store")) signs its certificate, whether it requires a client certificate (cert-file, key-file), and the address and port")
    }

    /// Something answered on the broker's port, but not with an MQTT CONNACK.
    private func notMQTT() -> MQTTError {
        let broker = options.broker
        return MQTTError(.notMQTT, "\(broker.host) port \(broker.port) does not speak MQTT: it closed the connection without answering the MQTT CONNECT; check the broker address and port in [mqtt] broker (a TLS port needs mqtts://)")
    }

    /// The loop returned (loopQueue): the end of the connection, if no callback said so.
    private func loopEnded(_ code: Int32, errno lostErrno: Int32) {
        guard !endReported.withLock({ reported in defer { reported = true }; return reported }) else { return }
        guard code != MOSQ_ERR_SUCCESS.rawValue else {
            continuation.yield(.disconnected(nil))
            return
        }
        let early = code == MOSQ_ERR_PROTOCOL.rawValue || code == MOSQ_ERR_CONN_LOST.rawValue
        if early || connackSeen.withLock({ $0 }) {
            continuation.yield(.disconnected(ended(code, errno: lostErrno)))
            return
        }
        continuation.yield(.disconnected(connectFailure(code, errno: lostErrno)))
    }

    /// Why a connection could not be made, with what to check.
    private func connectFailure(_ code: Int32, errno lostErrno: Int32 = errno) -> MQTTError {
        let what = code == MOSQ_ERR_ERRNO.rawValue ? MosquittoClient.errnoText(lostErrno) : MosquittoClient.describe(code)
        let hint = code == MOSQ_ERR_TLS.rawValue
            ? "check that ca-file signs the broker's certificate and that the certificate names \(options.broker.host)"
            : "is it running and reachable?"
        return MQTTError(.unreachable, "cannot connect to the MQTT broker \(options.broker): \(what); \(hint)")
    }

    private func received(_ message: mosquitto_message) {
        guard let topic = message.topic, message.payloadlen >= 0 else { return }
        // Only a broker that ignores our Maximum Packet Size sends more: not copied, not answered.
        guard message.payloadlen <= Int32(clamping: options.maximumPacketSize) else {
            logger.warning("dropped a \(message.payloadlen)-byte message on \(String(cString: topic)): larger than the \(options.maximumPacketSize) bytes the gateway accepts (the broker ignored the MQTT 5 Maximum Packet Size)")
            return
        }
        let payload: [UInt8] = message.payload.map {
            Array(UnsafeRawBufferPointer(start: $0, count: Int(message.payloadlen)))
        } ?? []
        continuation.yield(.message(MQTTMessage(topic: String(cString: topic), payload: payload,
                                                qos: Int(message.qos), retain: message.retain)))
    }

    /// libmosquitto's text for `code`; for system errors, errno's.
    static func describe(_ code: Int32) -> String {
        if code == MOSQ_ERR_ERRNO.rawValue { return errnoText(errno) }
        return String(cString: cg_mosquitto_strerror(code)).trimmingTrailingPeriod()
    }

    /// strerror, except that errno 0 ("Success") means the peer closed the connection.
    static func errnoText(_ number: Int32) -> String {
        number == 0 ? "the connection was closed" : String(cString: strerror(number))
    }

    /// An MQTT 5 reason code (or 3.1.1 CONNACK code) in words.
    static func reason(_ code: Int32) -> String {
        let text = code < 0x80 && code <= 5 ? cg_mosquitto_connack_string(code) : cg_mosquitto_reason_string(code)
        return text.map { String(cString: $0).trimmingTrailingPeriod() } ?? "reason code \(code)"
    }
}

/// Whether (and by when) the network loop is to end.
private final class LoopControl: Sendable {
    private let deadline = Mutex<ContinuousClock.Instant?>(nil)

    var stopDeadline: ContinuousClock.Instant? { deadline.withLock { $0 } }

    func requestStop() {
        deadline.withLock { $0 = $0 ?? ContinuousClock.now + MosquittoClient.stopGrace }
    }

    func reset() { deadline.withLock { $0 = nil } }
}

extension String {
    fileprivate func trimmingTrailingPeriod() -> String { hasSuffix(".") ? String(dropLast()) : self }
}
