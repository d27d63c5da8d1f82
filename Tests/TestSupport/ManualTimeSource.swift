import Synchronization
import SystemSupport

/// A clock that moves only when a test advances it, so heartbeats, timeouts
/// and backoff run deterministically and instantly.
public final class ManualTimeSource: TimeSource, Sendable {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .seconds(1000)
        var sleepers: [Sleeper] = []
        var nextID = 0
        /// Sleepers cancelled before they registered (cancellation can win the race).
        var cancelledEarly: Set<Int> = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Duration { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(for duration: Duration) async throws {
        try await sleep(deadline: { $0 + duration })
    }

    /// The deadline is taken as given, under the lock that `advance` moves
    /// time under, so a timer armed before this task ran is not pushed back.
    public func sleep(until deadline: Duration) async throws {
        try await sleep(deadline: { _ in deadline })
    }

    /// Registers a sleeper whose deadline is worked out from `now` under the lock.
    private func sleep(deadline: @escaping @Sendable (Duration) -> Duration) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, resume, cancel }
                let outcome = state.withLock { state -> Outcome in
                    if state.cancelledEarly.remove(id) != nil { return .cancel }
                    let due = deadline(state.now)
                    if due <= state.now { return .resume }
                    state.sleepers.append(Sleeper(id: id, deadline: due, continuation: continuation))
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .resume: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward in `step`s, waking due sleepers at each step and
    /// letting woken tasks run before the next one.
    public func advance(by total: Duration, step: Duration = .milliseconds(100)) async {
        var remaining = total
        while remaining > .zero {
            let delta = min(step, remaining)
            remaining -= delta
            let due = state.withLock { state -> [Sleeper] in
                state.now += delta
                let due = state.sleepers.filter { $0.deadline <= state.now }.sorted { $0.deadline < $1.deadline }
                state.sleepers.removeAll { $0.deadline <= state.now }
                return due
            }
            for sleeper in due { sleeper.continuation.resume() }
            await settle()
        }
    }

    /// Gives other tasks a chance to run.
    public func settle() async {
        for _ in 0..<20 { await Task.yield() }
        try? await Task.sleep(for: .milliseconds(2))
        for _ in 0..<20 { await Task.yield() }
    }
}
