import GatewayModel
import SystemSupport

/// Turns key presses into a calm stream of actions, so that no remote, stuck
/// or flooding, can flood the receiver.
///
/// - Volume and seek (the actions that repeat when held) are **coalesced**:
///   steps are never dropped, but while one request is in flight, or within
///   `minimumInterval` of the last one, further steps accumulate and are sent
///   as a single request. Ten volume-up repeats become one SET_VOLUME to the
///   final level, never a queue of stale commands.
/// - Every other action ignores auto-repeats, runs one at a time, and keeps at
///   most one press waiting (further presses meanwhile are dropped).
///
/// Each busy lane has one worker task, owned here: `stop()` ends them.
public actor ActionScheduler {
    /// Carries out one action (the gateway, in the daemon).
    public typealias Perform = @Sendable (Action) async -> Void

    private enum Lane: Hashable { case volume, seek, other }

    private let perform: Perform
    private let timeSource: any TimeSource
    private let minimumInterval: Duration
    private var pendingDelta: [Lane: Double] = [:]
    private var waitingAction: Action?
    private var busy: Set<Lane> = []
    private var lastRun: [Lane: Duration] = [:]
    private var workers: [Lane: Task<Void, Never>] = [:]
    /// Whether `stop()` was called.
    public private(set) var stopped = false

    public init(minimumInterval: Duration = .milliseconds(100), timeSource: any TimeSource = SystemTimeSource(),
                perform: @escaping Perform) {
        self.minimumInterval = minimumInterval
        self.timeSource = timeSource
        self.perform = perform
    }

    /// Accepts one action from a key event.
    public func submit(_ action: Action, isRepeat: Bool) {
        if stopped || isRepeat && !action.repeatsWhenHeld { return }
        switch action {
        case .volumeUp(let step): accumulate(.volume, step)
        case .volumeDown(let step): accumulate(.volume, -step)
        case .seekBy(let seconds): accumulate(.seek, seconds)
        default:
            if busy.contains(.other) {
                waitingAction = action
            } else {
                busy.insert(.other)
                // One worker per busy lane, ending when the lane is empty: submit() never waits for the receiver.
                workers[.other] = Task { await self.runOthers(startingWith: action) }
            }
        }
    }

    /// Whether nothing is running or waiting (for tests and shutdown).
    public var isIdle: Bool { busy.isEmpty && waitingAction == nil && pendingDelta.values.allSatisfy { $0 == 0 } }

    /// Stops for good (shutdown): drops the steps and the press that wait,
    /// ends a rate-limit wait at once, and returns when the action in progress
    /// (if any) has returned. Nothing is performed after that; later submits are ignored.
    public func stop() async {
        stopped = true
        pendingDelta.removeAll()
        waitingAction = nil
        let running = Array(workers.values)
        for worker in running { worker.cancel() }
        for worker in running { await worker.value }
    }

    private func accumulate(_ lane: Lane, _ delta: Double) {
        pendingDelta[lane, default: 0] += delta
        guard !busy.contains(lane) else { return }
        busy.insert(lane)
        // One worker per busy lane, ending when the lane is empty: submit() never waits for the receiver.
        workers[lane] = Task { await self.drain(lane) }
    }

    private func drain(_ lane: Lane) async {
        while let delta = pendingDelta[lane], delta != 0 {
            if let last = lastRun[lane] {
                let wait = last + minimumInterval - timeSource.now
                if wait > .zero { try? await timeSource.sleep(for: wait) }
            }
            guard !stopped else { break }
            let total = pendingDelta[lane] ?? 0
            pendingDelta[lane] = 0
            guard total != 0 else { break }
            lastRun[lane] = timeSource.now
            await perform(lane == .volume ? (total > 0 ? .volumeUp(total) : .volumeDown(-total)) : .seekBy(total))
        }
        busy.remove(lane)
        workers[lane] = nil
    }

    private func runOthers(startingWith first: Action) async {
        var next: Action? = first
        while let action = next {
            await perform(action)
            next = stopped ? nil : waitingAction
            waitingAction = nil
        }
        busy.remove(.other)
        workers[.other] = nil
    }
}
