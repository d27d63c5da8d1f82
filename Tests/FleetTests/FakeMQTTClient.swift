import Fleet
import Synchronization

/// The MQTT seam's fake: records what the service sends, lets the test play the broker.
final class FakeMQTTClient: MQTTClient, Sendable {
    private struct Record {
        var published: [MQTTMessage] = []
        var subscriptions: [[String]] = []
        var connectCalls = 0
        var connectErrors: [MQTTError] = []
        var goodbye: [MQTTMessage?] = []
    }

    let events: AsyncStream<MQTTEvent>
    private let continuation: AsyncStream<MQTTEvent>.Continuation
    private let record = Mutex(Record())

    init() {
        (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
    }

    func connect() async throws {
        let error = record.withLock { record -> MQTTError? in
            record.connectCalls += 1
            return record.connectErrors.isEmpty ? nil : record.connectErrors.removeFirst()
        }
        if let error { throw error }
    }

    func subscribe(_ filters: [String], qos: Int) { record.withLock { $0.subscriptions.append(filters) } }
    func publish(_ message: MQTTMessage) { record.withLock { $0.published.append(message) } }
    func disconnect(after final: MQTTMessage?) async { record.withLock { $0.goodbye.append(final) } }

    /// The broker's side.
    func emit(_ event: MQTTEvent) { continuation.yield(event) }
    func failNextConnect(with error: MQTTError) { record.withLock { $0.connectErrors.append(error) } }

    var published: [MQTTMessage] { record.withLock { $0.published } }
    var subscriptions: [[String]] { record.withLock { $0.subscriptions } }
    var connectCalls: Int { record.withLock { $0.connectCalls } }
    var goodbye: [MQTTMessage?] { record.withLock { $0.goodbye } }
    func published(on topic: String) -> [MQTTMessage] { published.filter { $0.topic == topic } }
}

/// A `FleetCommandHandler` that records the lines it runs (when each starts).
final class RecordingHandler: FleetCommandHandler {
    private let lines = Mutex<[String]>([])
    let reply: @Sendable (String) -> FleetReply
    let kinds: @Sendable (String) -> FleetCommandKind

    init(reply: @escaping @Sendable (String) -> FleetReply = { FleetReply(ok: true, lines: ["ok: \($0)"]) },
         kinds: @escaping @Sendable (String) -> FleetCommandKind = { _ in .local }) {
        self.reply = reply
        self.kinds = kinds
    }

    func prepare(_ line: String) -> FleetCommand {
        FleetCommand(kind: kinds(line)) {
            self.lines.withLock { $0.append(line) }
            return self.reply(line)
        }
    }

    var received: [String] { lines.withLock { $0 } }
}

/// A list that closures on any thread can append to.
final class Recorded<Element: Sendable>: Sendable {
    private let items = Mutex<[Element]>([])
    init() {}
    func append(_ item: Element) { items.withLock { $0.append(item) } }
    var all: [Element] { items.withLock { $0 } }
}
