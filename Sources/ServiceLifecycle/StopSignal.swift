import SystemSupport
import Synchronization

/// A one-shot latch that any number of tasks can await. Waiters resume when
/// it fires, and also when their own task is cancelled.
final class StopSignal: Sendable {
    private struct State {
        var fired = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    var isFired: Bool { state.withLock { $0.fired } }

    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}

/// Waits until the first of `signals` fires (or the task is cancelled) and
/// says which: its index.
func firstFired(_ signals: [StopSignal]) async -> Int? {
    await withTaskGroup(of: Int?.self) { group in
        for (index, signal) in signals.enumerated() {
            group.addTask {
                await signal.wait()
                return signal.isFired ? index : nil
            }
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Suspends until the current task is cancelled: the body of a service
/// whose work is done by others (callbacks, sources) until it is asked to stop.
public func waitUntilCancelled() async {
    await StopSignal().wait()
}
