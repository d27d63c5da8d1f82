import SystemSupport
extension ServiceGroup {
    /// How one run of a service ended.
    enum Ending: Sendable {
        case stopped
        case failed(String)
        /// Not an ending: the service has run for `healthyAfter` since a failure.
        case recovered
    }

    /// Runs the service until its stop, restarting it after failures when it
    /// allows that. A failure is logged once (a repeat of the same one is
    /// debug) and reported until the service recovers.
    func supervise(_ runner: ServiceRunner) async {
        defer { runner.finished.fire() }
        let service = runner.service
        var backoff = self.backoff
        var failure: String?
        while !runner.stop.isFired {
            let startedAt = timeSource.now
            let (ending, recovered) = await runOnce(runner, watchRecovery: failure != nil)
            if recovered || timeSource.now - startedAt >= healthyAfter {
                backoff.reset()
                failure = nil
            }
            guard case .failed(let problem) = ending, !runner.stop.isFired else { return }
            runner.started.fire()  // failed before it said it runs: the next services start anyway
            guard service.restartsAfterFailure else {
                logger.error("\(service.name) \(problem); it stays stopped, the rest of the gateway runs on")
                await onFailure(service.name, "\(service.name) \(problem); stopped")
                return
            }
            let delay = backoff.nextDelay()
            if problem == failure {
                logger.debug("\(service.name) \(problem) again; restarting in \(delay.secondsText)")
            } else {
                logger.error("\(service.name) \(problem); restarting in \(delay.secondsText)")
                await onFailure(service.name, "\(service.name) \(problem); restarting")
            }
            failure = problem
            guard await sleepUnlessStopped(for: delay, runner) else { return }
        }
    }

    /// One run of the service: until it ends, fails or is asked to stop.
    /// Says whether it recovered from an earlier failure on the way.
    private func runOnce(_ runner: ServiceRunner, watchRecovery: Bool) async -> (Ending, recovered: Bool) {
        let service = runner.service, timeSource = self.timeSource, healthyAfter = self.healthyAfter
        return await withTaskGroup(of: Ending.self) { group in
            group.addTask {
                await ServiceStart.$latch.withValue(runner.started) {
                    if !service.signalsRunning { runner.started.fire() }
                    do {
                        try await service.run()
                        return Task.isCancelled ? .stopped : .failed("returned without being asked to stop")
                    } catch {
                        if Task.isCancelled { return .stopped }
                        return .failed(error is CancellationError ? "was cancelled without being asked to stop" : "failed: \(error)")
                    }
                }
            }
            group.addTask {
                await runner.stop.wait()
                return .stopped
            }
            if watchRecovery {
                let healthyAt = timeSource.now + healthyAfter
                group.addTask {
                    (try? await timeSource.sleep(until: healthyAt)) != nil ? .recovered : .stopped
                }
            }
            var recovered = false
            var ending = Ending.stopped
            while let next = await group.next() {
                if case .recovered = next {
                    recovered = true
                    await onFailure(service.name, nil)
                    continue
                }
                ending = next
                break
            }
            group.cancelAll()
            // Wait for the service itself to finish its graceful stop.
            while await group.next() != nil {}
            return (ending, recovered)
        }
    }

    /// Sleeps `delay` on the group's clock; false when the stop came first.
    private func sleepUnlessStopped(for delay: Duration, _ runner: ServiceRunner) async -> Bool {
        let timeSource = self.timeSource
        let elapsed = StopSignal(), due = timeSource.now + delay
        let timer = Task {
            if (try? await timeSource.sleep(until: due)) != nil { elapsed.fire() }
        }
        defer { timer.cancel() }  // a cancelled sleep ends at once; nothing is left to await
        return await firstFired([elapsed, runner.stop]) == 0 && !runner.stop.isFired
    }
}
