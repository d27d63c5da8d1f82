import SystemSupport
import Synchronization

/// Runs the daemon's services with one lifecycle:
/// - they start one after another, in the order given: the next starts once
///   the previous one is running (see `Service.signalsRunning`), so the Cast
///   session owner has set the gateway up before the parts that use it start,
///   and the notifier, last, says READY=1 only when every other part is up;
/// - on shutdown (`shutdown()`, a shutdown signal, or cancellation of the task
///   running the group) they stop in reverse order, each cancelled and awaited
///   before the one before it, so that the notifier says STOPPING first and
///   the Cast session owner leaves last. The whole stop has a deadline
///   (`shutdownDeadline`, below systemd's stop timeout): a service still
///   running then is named in the log and left behind, and `run` returns;
/// - a service that fails, or returns unasked, is logged with its name,
///   reported through `onFailure` while the failure lasts and, when it allows
///   it, restarted with backoff on the injected clock. A restarted service
///   that keeps running for `healthyAfter` has recovered: the report is
///   cleared and the backoff starts over. One failing part never takes the
///   others down.
/// Modelled on swift-service-lifecycle's `ServiceGroup` (its
/// `maximumGracefulShutdownDuration` is our deadline), which is not a dependency.
public final class ServiceGroup: Sendable {
    /// Reports a service's failure (a line for `status`), or with nil its recovery.
    public typealias FailureReporter = @Sendable (_ service: String, _ failure: String?) async -> Void

    public let services: [any Service]
    let timeSource: any TimeSource
    let backoff: Backoff
    let healthyAfter: Duration
    let shutdownDeadline: Duration
    let onFailure: FailureReporter
    let logger: Logger
    private let trigger = StopSignal()

    /// `shutdownDeadline` defaults to 10 s: the unit's `TimeoutStopSec` is 15 s,
    /// and the process must have exited by then on its own.
    public init(services: [any Service], timeSource: any TimeSource = SystemTimeSource(),
                restartBackoff: Backoff = Backoff(initial: .seconds(1), maximum: .seconds(60)),
                healthyAfter: Duration = .seconds(10), shutdownDeadline: Duration = .seconds(10),
                logger: Logger = Logger(label: "services"), onFailure: @escaping FailureReporter = { _, _ in }) {
        self.services = services
        self.timeSource = timeSource
        self.backoff = restartBackoff
        self.healthyAfter = healthyAfter
        self.shutdownDeadline = shutdownDeadline
        self.onFailure = onFailure
        self.logger = logger
    }

    /// After the deadline, the services not yet stopped get this long together
    /// (so the deadline and this stay below systemd's 15 s stop timeout).
    static let finalGrace: Duration = .seconds(2)

    /// Asks the group to stop its services (in reverse order) and return from `run`.
    public func shutdown() { trigger.fire() }

    /// Runs every service until shutdown; `shutdownSignals` (e.g. SIGTERM,
    /// SIGINT) trigger it too. Returns once every service has stopped, or
    /// once the stop deadline has passed: then false, and the services still
    /// running have been named in the log.
    @discardableResult
    public func run(shutdownSignals: [Int32] = []) async -> Bool {
        let runners = services.map(ServiceRunner.init)
        let waiter = Task { await self.waitForShutdown(signals: shutdownSignals) }
        await withTaskCancellationHandler {
            for runner in runners {
                guard !trigger.isFired else { break }  // asked to stop while starting: the rest never start
                runner.start { await self.supervise(runner) }
                _ = await firstFired([runner.started, runner.finished, trigger])
            }
            // Until shutdown, or until every service has ended on its own (none of them restarts).
            let allEnded = StopSignal()
            let watcher = Task {
                for runner in runners { await runner.finished.wait() }
                if !Task.isCancelled { allEnded.fire() }
            }
            _ = await firstFired([trigger, allEnded])
            watcher.cancel()
            await watcher.value
        } onCancel: {
            trigger.fire()
        }
        trigger.fire()
        await waiter.value
        // Not in this task: when it is the one cancelled (a way to stop the group),
        // every wait in the stop would end at once and no service would be awaited.
        return await Task { await self.stopInReverse(runners) }.value
    }

    /// Stops the started services last to first, within `shutdownDeadline` in all.
    private func stopInReverse(_ runners: [ServiceRunner]) async -> Bool {
        let deadline = StopSignal(), due = timeSource.now + shutdownDeadline
        let timer = Task { [timeSource] in
            if (try? await timeSource.sleep(until: due)) != nil { deadline.fire() }
        }
        defer { timer.cancel() }
        var hung: ServiceRunner?
        var rest: [ServiceRunner] = []
        for runner in runners.reversed() where runner.isStarted {
            runner.stop.fire()
            guard hung == nil else {
                rest.append(runner)  // past the deadline: asked to stop at once, all together
                continue
            }
            logger.debug("stopping \(runner.service.name)")
            if await firstFired([runner.finished, deadline]) != 0 { hung = runner }
        }
        guard let hung else { return true }
        // The services after the hung one (the Cast session among them) get a
        // last short grace together, so that they still leave cleanly.
        let grace = StopSignal(), graceEnds = timeSource.now + ServiceGroup.finalGrace
        let graceTimer = Task { [timeSource] in
            if (try? await timeSource.sleep(until: graceEnds)) != nil { grace.fire() }
        }
        defer { graceTimer.cancel() }
        for runner in rest where await firstFired([runner.finished, grace]) != 0 { break }
        let notStopped = rest.filter { !$0.finished.isFired }.map(\.service.name)
        logger.error("\(hung.service.name) did not stop within \(shutdownDeadline.secondsText); exiting without waiting for it"
            + (notStopped.isEmpty ? "" : " (nor for \(notStopped.joined(separator: ", ")))"))
        return false
    }

    private func waitForShutdown(signals: [Int32]) async {
        guard !signals.isEmpty else {
            await trigger.wait()
            return
        }
        let signalStream = SignalStream.watch(signals)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await number in signalStream {
                    self.logger.notice("stopping (signal \(number))")
                    break
                }
            }
            group.addTask { await self.trigger.wait() }
            await group.next()
            group.cancelAll()
        }
        trigger.fire()
    }
}

/// One service in a group: its task and the latches the group waits on.
final class ServiceRunner: Sendable {
    let service: any Service
    /// Fired when the service is up (or failed before it was).
    let started = StopSignal()
    /// Fired by the group to stop the service.
    let stop = StopSignal()
    /// Fired when the supervising task has ended: the service is stopped for good.
    let finished = StopSignal()
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(service: any Service) {
        self.service = service
    }

    var isStarted: Bool { task.withLock { $0 != nil } }

    /// Starts the supervising task. It is not a child of the group's task, so
    /// that a service that ignores its stop cannot keep `run` from returning.
    func start(_ body: @escaping @Sendable () async -> Void) {
        task.withLock { $0 = Task(operation: body) }
    }
}
