import Synchronization

/// Hands events (not snapshots) to any number of subscribers: each gets
/// every event published after it subscribed, up to `buffer` waiting, the
/// oldest dropped beyond that. For things that happen (a key pressed), where
/// `StateBroadcaster`'s newest-only would lose presses.
public final class EventBroadcaster<Event: Sendable>: Sendable {
    private let subscribers = Mutex<(next: Int, all: [Int: AsyncStream<Event>.Continuation])>((0, [:]))
    private let buffer: Int

    public init(buffer: Int = 64) {
        self.buffer = buffer
    }

    /// Hands `event` to every subscriber. The continuations are yielded to
    /// outside the lock (a cancelled consumer's termination handler takes it).
    public func publish(_ event: Event) {
        let targets = subscribers.withLock { Array($0.all.values) }
        for continuation in targets { continuation.yield(event) }
    }

    /// The events published from now on.
    public func subscribe() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(buffer))
        let id = subscribers.withLock { state -> Int in
            let id = state.next
            state.next += 1
            state.all[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.all.removeValue(forKey: id) }
        }
        return stream
    }
}
