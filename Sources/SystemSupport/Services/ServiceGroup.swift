import Synchronization

/// Runs the daemon's services in one task group, with one lifecycle:
/// - they start in the order given (each one's task is created in turn);
/// - on shutdown (`shutdown()`, a shutdown signal, or cancellation of the task
///   running the group) they stop in reverse order, each cancelled and awaited
///   before the one before it, so that the notifier says STOPPING first and
///   the Cast session owner leaves last;
/// - a service that fails, or returns unasked, is logged with its name and,
///   when it allows it, restarted with backoff on the injected clock. One
///   failing part never takes the others down.
/// Modelled on swift-service-lifecycle's `ServiceGroup`, which is not a dependency.
public final class ServiceGroup: Sendable {
    public let services: [any Service]
    private let timeSource: any TimeSource
    private let backoff: Backoff
    private let logger: Logger
    private let trigger = ShutdownTrigger()

    public init(services: [any Service], timeSource: any TimeSource = SystemTimeSource(),
                restartBackoff: Backoff = Backoff(initial: .seconds(1), maximum: .seconds(60)),
                logger: Logger = Logger(label: "services")) {
        self.services = services
        self.timeSource = timeSource
        self.backoff = restartBackoff
        self.logger = logger
    }

    /// Asks the group to stop its services (in reverse order) and return from `run`.
    public func shutdown() { trigger.fire() }

    /// Runs every service until shutdown; `shutdownSignals` (e.g. SIGTERM,
    /// SIGINT) trigger it too. Returns once every service has stopped.
    public func run(shutdownSignals: [Int32] = []) async {
        let stops = services.map { _ in StopSignal() }
        await withTaskGroup(of: Int?.self) { group in
            for (index, service) in services.enumerated() {
                group.addTask { await self.supervise(service, stop: stops[index]); return index }
            }
            // The shutdown waiter: a signal, `shutdown()`, or the parent's cancellation.
            group.addTask {
                await withTaskCancellationHandler {
                    await self.waitForShutdown(signals: shutdownSignals)
                } onCancel: {
                    self.trigger.fire()
                }
                return nil
            }
            var stopped = Set<Int>()
            // Services may end on their own before shutdown (and not be restarted).
            while let finished = await group.next() {
                guard let index = finished else { break }  // shutdown requested
                stopped.insert(index)
                if stopped.count == services.count { trigger.fire() }
            }
            for index in services.indices.reversed() where !stopped.contains(index) {
                logger.debug("stopping \(services[index].name)")
                stops[index].fire()
                while let finished = await group.next() {
                    guard let finished else { continue }
                    stopped.insert(finished)
                    if finished == index { break }
                }
            }
            group.cancelAll()
        }
    }

    private func waitForShutdown(signals: [Int32]) async {
        if signals.isEmpty {
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

    /// Runs `service` until `stop` fires, restarting it after failures when it allows that.
    private func supervise(_ service: any Service, stop: StopSignal) async {
        var backoff = self.backoff
        while true {
            let outcome: String? = await withTaskGroup(of: String?.self) { group in
                group.addTask {
                    do {
                        try await service.run()
                        return Task.isCancelled ? nil : "returned without being asked to stop"
                    } catch is CancellationError {
                        return nil
                    } catch {
                        return Task.isCancelled ? nil : "failed: \(error)"
                    }
                }
                group.addTask {
                    await stop.wait()
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                // Wait for the service itself to finish its graceful stop.
                while await group.next() != nil {}
                return first
            }
            guard let problem = outcome, !stop.isFired else { return }
            guard service.restartsAfterFailure else {
                logger.error("\(service.name) \(problem); it stays stopped, the rest of the gateway runs on")
                return
            }
            let delay = backoff.nextDelay()
            logger.error("\(service.name) \(problem); restarting in \(delay.secondsText)")
            let restart: Bool = await withTaskGroup(of: Bool.self) { group in
                group.addTask { (try? await self.timeSource.sleep(for: delay)) != nil }
                group.addTask {
                    await stop.wait()
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first && !stop.isFired
            }
            guard restart else { return }
        }
    }
}

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

typealias ShutdownTrigger = StopSignal

/// Suspends until the current task is cancelled: the body of a service
/// whose work is done by others (callbacks, sources) until it is asked to stop.
public func waitUntilCancelled() async {
    await StopSignal().wait()
}
