import Synchronization

/// Publishes snapshots of a value to any number of subscribers. A new
/// subscriber first receives the current value; a slow one only ever sees
/// the newest snapshot, never a backlog.
public final class StateBroadcaster<Value: Sendable>: Sendable {
    private struct Subscribers {
        var current: Value
        var continuations: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let subscribers: Mutex<Subscribers>

    public init(_ initial: Value) {
        subscribers = Mutex(Subscribers(current: initial))
    }

    public var current: Value { subscribers.withLock { $0.current } }

    /// Replaces the value and notifies every subscriber.
    public func publish(_ value: Value) {
        let targets = subscribers.withLock { state -> [AsyncStream<Value>.Continuation] in
            state.current = value
            return Array(state.continuations.values)
        }
        for continuation in targets { continuation.yield(value) }
    }

    /// A stream of snapshots, starting with the current one.
    public func subscribe() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let id: Int? = subscribers.withLock { state in
            guard !state.finished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.continuations[id] = continuation
            continuation.yield(state.current)
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Ends every subscription.
    public func finish() {
        let targets = subscribers.withLock { state -> [AsyncStream<Value>.Continuation] in
            state.finished = true
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
