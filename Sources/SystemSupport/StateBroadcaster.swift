import Synchronization

/// Publishes snapshots of a value to any number of subscribers. A new
/// subscriber first receives the current value; a slow one only ever sees
/// the newest snapshot, never a backlog. Every published snapshot is numbered
/// (`version`), so a follower can tell how far it has caught up.
public final class StateBroadcaster<Value: Sendable>: Sendable {
    /// A snapshot and its number: 0 for the initial value, then one more per `publish`.
    public struct Versioned: Sendable {
        public let version: UInt64
        public let value: Value
    }

    private struct Subscriber {
        let yield: @Sendable (Versioned) -> Void
        let finish: @Sendable () -> Void
    }

    private struct Subscribers {
        var current: Versioned
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var finished = false
    }

    private let subscribers: Mutex<Subscribers>
    /// Held while a snapshot is handed to the subscribers, so that two
    /// publishers deliver in order. Not `subscribers`: handing a value over
    /// may wait for the consumer task's status lock, which a task being
    /// cancelled holds while its stream's termination handler takes
    /// `subscribers`. Yielding under `subscribers` deadlocked exactly there
    /// (a client replaced while it published; found by the whole-path fuzzer).
    private let delivery = Mutex(())

    public init(_ initial: Value) {
        subscribers = Mutex(Subscribers(current: Versioned(version: 0, value: initial)))
    }

    public var current: Value { subscribers.withLock { $0.current.value } }

    /// The number of the newest published snapshot.
    public var version: UInt64 { subscribers.withLock { $0.current.version } }

    /// Replaces the value and notifies every subscriber.
    public func publish(_ value: Value) {
        delivery.withLock { _ in
            let (snapshot, targets) = subscribers.withLock { state in
                state.current = Versioned(version: state.current.version + 1, value: value)
                return (state.current, Array(state.subscribers.values))
            }
            for subscriber in targets { subscriber.yield(snapshot) }
        }
    }

    /// A stream of snapshots, starting with the current one.
    public func subscribe() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        add(Subscriber(yield: { continuation.yield($0.value) }, finish: { continuation.finish() }), to: continuation)
        return stream
    }

    /// A stream of numbered snapshots, starting with the current one.
    public func subscribeVersioned() -> AsyncStream<Versioned> {
        let (stream, continuation) = AsyncStream.makeStream(of: Versioned.self, bufferingPolicy: .bufferingNewest(1))
        add(Subscriber(yield: { continuation.yield($0) }, finish: { continuation.finish() }), to: continuation)
        return stream
    }

    private func add<Element>(_ subscriber: Subscriber, to continuation: AsyncStream<Element>.Continuation) {
        let id: Int? = subscribers.withLock { state in
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = subscriber
            subscriber.yield(state.current)
            return id
        }
        guard let id else {
            continuation.finish()
            return
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.subscribers.removeValue(forKey: id) }
        }
    }

    /// Ends every subscription.
    public func finish() {
        let targets = subscribers.withLock { state -> [Subscriber] in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in targets { subscriber.finish() }
    }
}
