import Synchronization

/// The outcome of one coalesced request, shared by every step it carried:
/// resolved once, awaited by any number of front ends, before or after.
public final class ActionOutcome: Sendable {
    private struct State {
        var result: Result<Void, any Error>?
        var waiting: [CheckedContinuation<Result<Void, any Error>, Never>] = []
    }

    private let state = Mutex(State())

    init() {}

    init(_ result: Result<Void, any Error>) {
        state.withLock { $0.result = result }
    }

    /// Waits until the request has been answered (or dropped at stop).
    public func value() async -> Result<Void, any Error> {
        await withCheckedContinuation { continuation in
            let known = state.withLock { state -> Result<Void, any Error>? in
                if let result = state.result { return result }
                state.waiting.append(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// Sets the outcome (the first call wins) and wakes those waiting.
    func resolve(_ result: Result<Void, any Error>) {
        let waiting = state.withLock { state -> [CheckedContinuation<Result<Void, any Error>, Never>] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: result) }
    }
}
