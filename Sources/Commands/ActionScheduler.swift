import GatewayModel
import SystemSupport

/// Turns actions from every front end into a calm stream, so that no remote,
/// stuck or flooding, and no burst of console or MQTT commands, can flood
/// the receiver.
///
/// - Volume and seek steps (the actions that repeat when held) are
///   **coalesced**, whoever sends them: steps are never dropped, but while one
///   request is in flight, or within `minimumInterval` of the last one,
///   further steps accumulate and are sent as a single request. Ten
///   volume-up repeats become one SET_VOLUME to the final level, never a
///   queue of stale commands.
/// - Remote keys (`submit`) are not answered: a failure no one waits for is
///   handed to `unanswered` (the daemon logs it). Console and MQTT steps
///   (`schedule`) are answered with the outcome of the request that carried them.
/// - Every other key action ignores auto-repeats, runs one at a time, and
///   keeps at most one press waiting (further presses meanwhile are dropped).
///
/// Each busy lane has one worker task, owned here: `stop()` ends them.
public actor ActionScheduler {
    /// Carries out one action (tests; the daemon passes the gateway as an `ActionPerformer`).
    public typealias Perform = @Sendable (Action) async throws -> Void
    /// Told of a failure that no front end waits to answer (a remote key's).
    public typealias Unanswered = @Sendable (Action, any Error) -> Void

    /// Why a step taken in was not carried out.
    public struct Stopped: Error, Sendable, CustomStringConvertible {
        public var description: String { "not run: the gateway is stopping" }
    }

    private enum Lane: Hashable { case volume, seek, other }

    /// The steps of one lane sent, or to be sent, as one request.
    private struct Batch {
        let outcome = ActionOutcome()
        /// Whether a front end waits for the outcome (then it reports a failure, not `unanswered`).
        var answered = false
    }

    private let performer: any ActionPerformer
    private let unanswered: Unanswered
    private let timeSource: any TimeSource
    private let minimumInterval: Duration
    private var pendingDelta: [Lane: Double] = [:]
    /// The batch that will carry each lane's pending steps.
    private var pending: [Lane: Batch] = [:]
    /// The batch whose request is in flight.
    private var inFlight: [Lane: Batch] = [:]
    private var waitingAction: Action?
    private var busy: Set<Lane> = []
    private var lastRun: [Lane: Duration] = [:]
    private var workers: [Lane: Task<Void, Never>] = [:]
    /// Whether `stop()` was called.
    public private(set) var stopped = false

    public init(minimumInterval: Duration = .milliseconds(100), timeSource: any TimeSource = SystemTimeSource(),
                unanswered: @escaping Unanswered = { _, _ in }, performer: any ActionPerformer) {
        self.minimumInterval = minimumInterval
        self.timeSource = timeSource
        self.unanswered = unanswered
        self.performer = performer
    }

    public init(minimumInterval: Duration = .milliseconds(100), timeSource: any TimeSource = SystemTimeSource(),
                unanswered: @escaping Unanswered = { _, _ in }, perform: @escaping Perform) {
        self.init(minimumInterval: minimumInterval, timeSource: timeSource, unanswered: unanswered, performer: PerformClosure(body: perform))
    }

    /// A closure as the performer (tests, tools).
    private struct PerformClosure: ActionPerformer {
        let body: Perform

        func perform(_ action: Action) async throws { try await body(action) }
    }

    /// Whether `schedule` takes `action` (a volume step or a relative seek).
    public static func coalesces(_ action: Action) -> Bool {
        switch action {
        case .volumeUp, .volumeDown, .seekBy: true
        default: false
        }
    }

    /// Accepts one action from a key event.
    public func submit(_ action: Action, isRepeat: Bool) {
        if stopped || isRepeat && !action.repeatsWhenHeld { return }
        if case let (lane, delta)? = ActionScheduler.step(action) {
            accumulate(lane, delta)
            return
        }
        if busy.contains(.other) {
            waitingAction = action
        } else {
            busy.insert(.other)
            // One worker per busy lane, ending when the lane is empty: submit() never waits for the receiver.
            workers[.other] = Task { await self.runOthers(startingWith: action) }
        }
    }

    /// Takes in a volume step or relative seek from a front end that answers
    /// (console, MQTT), coalesced with the others of its lane; returns at
    /// once with the outcome to await. Other actions are not scheduled here
    /// (the front end performs them itself, after `settle()`).
    public func schedule(_ action: Action) -> ActionOutcome {
        guard case let (lane, delta)? = ActionScheduler.step(action) else {
            preconditionFailure("\(action.name) is not a step; check ActionScheduler.coalesces first")
        }
        guard !stopped else { return ActionOutcome(.failure(Stopped())) }
        accumulate(lane, delta)
        pending[lane, default: Batch()].answered = true
        return pending[lane, default: Batch()].outcome
    }

    /// Returns once every step taken in so far has been carried out (or
    /// dropped by `stop()`): a front end runs its next, other command only
    /// then, so its commands keep their order.
    public func settle() async {
        var outcomes: [ActionOutcome] = []
        for lane in [Lane.volume, .seek] {
            // The pending batch is sent after the one in flight: its end is the end of both.
            if let batch = pending[lane] ?? inFlight[lane] { outcomes.append(batch.outcome) }
        }
        for outcome in outcomes { _ = await outcome.value() }
    }

    /// Whether nothing is running or waiting (for tests and shutdown).
    public var isIdle: Bool { busy.isEmpty && waitingAction == nil && pendingDelta.values.allSatisfy { $0 == 0 } }

    /// Stops for good (shutdown): drops the steps and the press that wait,
    /// ends a rate-limit wait at once, and returns when the action in progress
    /// (if any) has returned. Nothing is performed after that; later submits
    /// are ignored, and steps scheduled are answered `Stopped`.
    public func stop() async {
        stopped = true
        pendingDelta.removeAll()
        for batch in pending.values { batch.outcome.resolve(.failure(Stopped())) }
        pending.removeAll()
        waitingAction = nil
        let running = Array(workers.values)
        for worker in running { worker.cancel() }
        for worker in running { await worker.value }
    }

    private static func step(_ action: Action) -> (Lane, Double)? {
        switch action {
        case .volumeUp(let step): (.volume, step)
        case .volumeDown(let step): (.volume, -step)
        case .seekBy(let seconds): (.seek, seconds)
        default: nil
        }
    }

    private func accumulate(_ lane: Lane, _ delta: Double) {
        pendingDelta[lane, default: 0] += delta
        if pending[lane] == nil { pending[lane] = Batch() }
        guard !busy.contains(lane) else { return }
        busy.insert(lane)
        // One worker per busy lane, ending when the lane is empty: submit() never waits for the receiver.
        workers[lane] = Task { await self.drain(lane) }
    }

    private func drain(_ lane: Lane) async {
        while pending[lane] != nil {
            if let last = lastRun[lane] {
                let wait = last + minimumInterval - timeSource.now
                if wait > .zero { try? await timeSource.sleep(for: wait) }
            }
            guard !stopped, let batch = pending.removeValue(forKey: lane) else { break }
            let total = pendingDelta[lane] ?? 0
            pendingDelta[lane] = 0
            // Steps that cancel out (+5 then -5) need no request.
            guard total != 0 else {
                batch.outcome.resolve(.success(()))
                continue
            }
            let action: Action = lane == .volume ? (total > 0 ? .volumeUp(total) : .volumeDown(-total)) : .seekBy(total)
            lastRun[lane] = timeSource.now
            inFlight[lane] = batch
            let result: Result<Void, any Error>
            do {
                try await performer.perform(action)
                result = .success(())
            } catch {
                result = .failure(error)
            }
            inFlight[lane] = nil
            if case .failure(let error) = result, !batch.answered { unanswered(action, error) }
            batch.outcome.resolve(result)
        }
        busy.remove(lane)
        workers[lane] = nil
    }

    private func runOthers(startingWith first: Action) async {
        var next: Action? = first
        while let action = next {
            do {
                try await performer.perform(action)
            } catch {
                unanswered(action, error)
            }
            next = stopped ? nil : waitingAction
            waitingAction = nil
        }
        busy.remove(.other)
        workers[.other] = nil
    }
}
