/// The seam between the fleet layer and an MQTT library: one connection to
/// one broker. `MosquittoClient` is the real one; unit tests use a fake.
///
/// Calls never block the caller for long: work that may block (DNS, TCP
/// connect, joining the network thread) runs on the client's own queue.
/// Everything the broker sends, and every change of the connection, arrives
/// in order on `events`.
public protocol MQTTClient: AnyObject, Sendable {
    /// Connection changes and incoming messages. One consumer.
    var events: AsyncStream<MQTTEvent> { get }

    /// Starts one connection attempt. Returning means the attempt is under
    /// way; its outcome arrives as `.connected`, `.refused` or
    /// `.disconnected`. Throws `MQTTError` when it cannot even start (DNS,
    /// refused TCP connection, unreadable CA or password file).
    func connect() async throws

    /// Subscribes to `filters` (fire and forget; the broker's SUBACK is not awaited).
    func subscribe(_ filters: [String], qos: Int)

    /// Queues `message` for sending (fire and forget).
    func publish(_ message: MQTTMessage)

    /// Sends `final` (if any) and a DISCONNECT, and returns once the
    /// network thread has ended. The broker does not publish the Last Will
    /// after a clean DISCONNECT, so `final` is how `offline` still gets out.
    func disconnect(after final: MQTTMessage?) async
}

/// What a client reports.
public enum MQTTEvent: Sendable, Equatable {
    /// The broker accepted the connection (CONNACK 0).
    case connected(sessionPresent: Bool)
    /// The broker refused the connection (CONNACK non-zero: wrong password, not authorised...).
    case refused(MQTTError)
    /// The connection ended: an error when it was lost, nil when asked for.
    case disconnected(MQTTError?)
    case message(MQTTMessage)
}

/// One application message, incoming or outgoing.
public struct MQTTMessage: Sendable, Equatable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int = 1, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, text: String, qos: Int = 1, retain: Bool = false) {
        self.init(topic: topic, payload: Array(text.utf8), qos: qos, retain: retain)
    }

    /// The payload as text (invalid UTF-8 repaired), for tests and logs.
    public var text: String { String(decoding: payload, as: UTF8.self) }
}
