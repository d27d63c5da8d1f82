import ServiceLifecycle
import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// A service that records its lifecycle and can be told to fail, to wait at
/// a gate before it says it runs, or to ignore its stop.
private final class Probe: Service, Sendable {
    let name: String
    let restartsAfterFailure: Bool
    var signalsRunning: Bool { true }
    let journal: Journal
    let failures: Mutex<Int>
    /// Opened by the test: until then the probe has not finished starting.
    let startGate: Gate?
    /// Opened by the test: until then the probe ignores its stop.
    let stopGate: Gate?

    init(_ name: String, journal: Journal, failures: Int = 0, restarts: Bool = true, startGate: Gate? = nil, stopGate: Gate? = nil) {
        self.name = name
        self.journal = journal
        self.failures = Mutex(failures)
        self.restartsAfterFailure = restarts
        self.startGate = startGate
        self.stopGate = stopGate
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String { "the probe's failure" }
    }

    func run() async throws {
        journal.add("start \(name)")
        if let startGate { await startGate.wait() }
        let fail = failures.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if fail {
            journal.add("fail \(name)")
            throw Failure()
        }
        // Recorded before the group hears of it: once `running()` is called the
        // next service may start (and record) before this task runs again.
        journal.add("running \(name)")
        ServiceStart.running()
        // Runs until cancelled, then stops gracefully (and takes a moment to do so).
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        if let stopGate { await stopGate.waitIgnoringCancellation() }
        await Task.yield()
        journal.add("stop \(name)")
    }
}

/// A latch the test opens.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    var isWaitedOn: Bool { state.withLock { !$0.waiters.isEmpty } }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async { await waitIgnoringCancellation() }

    func waitIgnoringCancellation() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}

final class Journal: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

/// What the group reported, by service.
private final class Reports: Sendable {
    private let entries = Mutex<[(String, String?)]>([])
    func add(_ service: String, _ failure: String?) { entries.withLock { $0.append((service, failure)) } }
    var all: [(service: String, failure: String?)] { entries.withLock { $0 } }
}

final class ServiceGroupTests: XCTestCase {
    func testServicesStartInOrderAndStopInReverse() async {
        let journal = Journal()
        let group = ServiceGroup(services: ["notifier", "session", "lirc", "console"].map { Probe($0, journal: journal) })
        let running = Task { await group.run() }
        let started = await eventually { journal.all.count == 8 }
        XCTAssertTrue(started, "\(journal.all)")
        XCTAssertEqual(journal.all, ["start notifier", "running notifier", "start session", "running session",
                                     "start lirc", "running lirc", "start console", "running console"])
        group.shutdown()
        let stoppedInTime = await running.value
        XCTAssertTrue(stoppedInTime)
        XCTAssertEqual(Array(journal.all.suffix(4)), ["stop console", "stop lirc", "stop session", "stop notifier"])
    }

    func testTheNextServiceStartsOnlyOnceThePreviousOneRuns() async {
        let journal = Journal()
        let gate = Gate()
        let group = ServiceGroup(services: [Probe("session", journal: journal, startGate: gate), Probe("console", journal: journal)])
        let running = Task { await group.run() }
        let waiting = await eventually { gate.isWaitedOn }
        XCTAssertTrue(waiting)
        // The session is still setting up: however long that takes, the console waits.
        for _ in 0..<200 { await Task.yield() }
        XCTAssertEqual(journal.all, ["start session"])
        gate.open()
        let both = await eventually { journal.all.contains("running console") }
        XCTAssertTrue(both, "\(journal.all)")
        XCTAssertEqual(journal.all, ["start session", "running session", "start console", "running console"])
        group.shutdown()
        _ = await running.value
    }

    func testAServiceThatFailsBeforeItRunsDoesNotHoldUpTheOthers() async {
        let journal = Journal()
        let clock = ManualTimeSource()
        let group = ServiceGroup(services: [Probe("cec", journal: journal, failures: 1), Probe("console", journal: journal)],
                                 timeSource: clock)
        let running = Task { await group.run() }
        let started = await eventually { journal.all.contains("running console") }
        XCTAssertTrue(started, "\(journal.all)")
        group.shutdown()
        _ = await running.value
    }

    func testAFailingServiceIsRestartedWithBackoffAndNeverStopsTheOthers() async {
        let journal = Journal()
        let clock = ManualTimeSource()
        let group = ServiceGroup(services: [Probe("session", journal: journal), Probe("lirc", journal: journal, failures: 3)],
                                 timeSource: clock, restartBackoff: Backoff(initial: .seconds(1), maximum: .seconds(4), jitter: 0),
                                 healthyAfter: .seconds(60))
        let running = Task { await group.run() }
        let failedOnce = await eventually { journal.all.filter { $0 == "fail lirc" }.count == 1 && clock.sleeperCount == 1 }
        XCTAssertTrue(failedOnce, "\(journal.all)")
        // Backoff 1 s, 2 s, 4 s on the manual clock: nothing restarts early.
        await clock.advance(by: .milliseconds(900))
        XCTAssertEqual(journal.all.filter { $0 == "start lirc" }.count, 1)
        await clock.advance(by: .milliseconds(100))
        let second = await eventually { journal.all.filter { $0 == "fail lirc" }.count == 2 && clock.sleeperCount == 1 }
        XCTAssertTrue(second, "\(journal.all)")
        await clock.advance(by: .seconds(2))
        let third = await eventually { journal.all.filter { $0 == "fail lirc" }.count == 3 && clock.sleeperCount == 1 }
        XCTAssertTrue(third, "\(journal.all)")
        await clock.advance(by: .seconds(4))
        let recovered = await eventually { journal.all.filter { $0 == "start lirc" }.count == 4 }
        XCTAssertTrue(recovered, "\(journal.all)")
        XCTAssertFalse(journal.all.contains("stop session"), "the session must never be stopped by another part's failure")
        group.shutdown()
        _ = await running.value
        XCTAssertEqual(Array(journal.all.suffix(2)), ["stop lirc", "stop session"])
    }

    func testAFailureIsLoggedOnceReportedAndClearedWhenTheServiceRecovers() async {
        let journal = Journal()
        let reports = Reports()
        let lines = Mutex<[String]>([])
        Logger.setSink { level, text in if level <= .error { lines.withLock { $0.append(text) } } }
        defer { Logger.setSink(nil) }
        let clock = ManualTimeSource()
        let group = ServiceGroup(services: [Probe("lirc", journal: journal, failures: 2)], timeSource: clock,
                                 restartBackoff: Backoff(initial: .seconds(1), maximum: .seconds(1), jitter: 0),
                                 healthyAfter: .seconds(10)) { service, failure in reports.add(service, failure) }
        let running = Task { await group.run() }
        let failed = await eventually { journal.all.filter { $0 == "fail lirc" }.count == 1 && clock.sleeperCount == 1 }
        XCTAssertTrue(failed, "\(journal.all)")
        XCTAssertEqual(reports.all.map(\.failure), ["lirc failed: the probe's failure; restarting"])
        await clock.advance(by: .seconds(1))
        let again = await eventually { journal.all.filter { $0 == "fail lirc" }.count == 2 && clock.sleeperCount == 1 }
        XCTAssertTrue(again, "\(journal.all)")
        // The same failure again is one message, one report.
        XCTAssertEqual(lines.withLock { $0 }, ["services: lirc failed: the probe's failure; restarting in 1.0 s"])
        XCTAssertEqual(reports.all.count, 1)
        await clock.advance(by: .seconds(1))
        let runs = await eventually { journal.all.contains("running lirc") && clock.sleeperCount == 1 }
        XCTAssertTrue(runs, "\(journal.all)")
        // Still reported until it has run for `healthyAfter`.
        await clock.advance(by: .seconds(9))
        XCTAssertEqual(reports.all.count, 1)
        await clock.advance(by: .seconds(1))
        let cleared = await eventually { reports.all.count == 2 }
        XCTAssertTrue(cleared)
        XCTAssertEqual(reports.all.last?.service, "lirc")
        XCTAssertNil(reports.all.last?.failure ?? nil)
        group.shutdown()
        _ = await running.value
    }

    func testAServiceThatMustNotRestartStaysStoppedAndShutdownStillCompletes() async {
        let journal = Journal()
        let reports = Reports()
        let group = ServiceGroup(services: [Probe("session", journal: journal), Probe("cec", journal: journal, failures: 1, restarts: false)]) {
            reports.add($0, $1)
        }
        let running = Task { await group.run() }
        let failed = await eventually { journal.all.contains("fail cec") && !reports.all.isEmpty }
        XCTAssertTrue(failed)
        XCTAssertEqual(reports.all.first?.failure, "cec failed: the probe's failure; stopped")
        group.shutdown()
        _ = await running.value
        XCTAssertEqual(journal.all.filter { $0 == "start cec" }.count, 1)
        XCTAssertEqual(journal.all.last, "stop session")
    }

    func testAServiceThatHangsOnStopIsNamedAndTheGroupReturnsAtTheDeadline() async {
        let journal = Journal()
        let lines = Mutex<[String]>([])
        Logger.setSink { level, text in if level <= .error { lines.withLock { $0.append(text) } } }
        defer { Logger.setSink(nil) }
        let clock = ManualTimeSource()
        let stuck = Gate()
        let group = ServiceGroup(services: [Probe("session", journal: journal), Probe("media", journal: journal, stopGate: stuck),
                                            Probe("console", journal: journal)],
                                 timeSource: clock, shutdownDeadline: .seconds(10))
        let running = Task { await group.run() }
        let started = await eventually { journal.all.contains("running console") }
        XCTAssertTrue(started)
        group.shutdown()
        let waiting = await eventually { stuck.isWaitedOn && clock.sleeperCount == 1 }
        XCTAssertTrue(waiting, "\(journal.all)")
        await clock.advance(by: .seconds(9))
        XCTAssertEqual(lines.withLock { $0 }, [], "no verdict before the deadline")
        await clock.advance(by: .seconds(1))
        let stoppedInTime = await running.value
        XCTAssertFalse(stoppedInTime)
        // The session, asked to stop after the deadline, still got its grace and stopped.
        XCTAssertEqual(lines.withLock { $0 }, ["services: media did not stop within 10.0 s; exiting without waiting for it"])
        XCTAssertTrue(journal.all.contains("stop session"))
        XCTAssertEqual(journal.all.first { $0.hasPrefix("stop") }, "stop console")
        XCTAssertFalse(journal.all.contains("stop media"))
        stuck.open()  // let the probe's task end
    }

    func testAReconfigurableServicesInnerFailureReachesTheGroup() async {
        let journal = Journal()
        let reports = Reports()
        let clock = ManualTimeSource()
        let settings = StateBroadcaster(1)
        let inner = Probe("lirc", journal: journal, failures: 1)
        let service = ReconfigurableService(name: "lirc", settings: settings, part: { $0 }) { _ in inner }
        let group = ServiceGroup(services: [service], timeSource: clock,
                                 restartBackoff: Backoff(initial: .seconds(1), maximum: .seconds(1), jitter: 0)) { reports.add($0, $1) }
        let running = Task { await group.run() }
        let failed = await eventually { journal.all.contains("fail lirc") && clock.sleeperCount == 1 }
        XCTAssertTrue(failed, "\(journal.all)")
        XCTAssertEqual(reports.all.first?.failure, "lirc failed: the probe's failure; restarting")
        await clock.advance(by: .seconds(1))
        let restarted = await eventually { journal.all.contains("running lirc") }
        XCTAssertTrue(restarted, "\(journal.all)")
        group.shutdown()
        _ = await running.value
        XCTAssertEqual(journal.all.last, "stop lirc")
    }

    func testCancellingTheTaskThatRunsTheGroupStopsEveryServiceInReverse() async {
        let journal = Journal()
        let group = ServiceGroup(services: ["session", "lirc", "console"].map { Probe($0, journal: journal) })
        let running = Task { await group.run() }
        let started = await eventually { journal.all.contains("running console") }
        XCTAssertTrue(started)
        running.cancel()
        let stoppedInTime = await running.value
        XCTAssertTrue(stoppedInTime, "the services were not waited for: \(journal.all)")
        XCTAssertEqual(Array(journal.all.suffix(3)), ["stop console", "stop lirc", "stop session"])
    }

    func testServicesStillRunningAfterTheFinalGraceAreNamedToo() async {
        let journal = Journal()
        let lines = Mutex<[String]>([])
        Logger.setSink { level, text in if level <= .error { lines.withLock { $0.append(text) } } }
        defer { Logger.setSink(nil) }
        let clock = ManualTimeSource()
        let stuck = Gate()
        let group = ServiceGroup(services: [Probe("session", journal: journal, stopGate: stuck), Probe("media", journal: journal, stopGate: stuck)],
                                 timeSource: clock, shutdownDeadline: .seconds(10))
        let running = Task { await group.run() }
        let started = await eventually { journal.all.contains("running media") }
        XCTAssertTrue(started)
        group.shutdown()
        let waiting = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(waiting)
        await clock.advance(by: .seconds(10))
        // Now the session is asked to stop too, and has 2 s.
        let grace = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(grace)
        await clock.advance(by: .seconds(2))
        let stoppedInTime = await running.value
        XCTAssertFalse(stoppedInTime)
        XCTAssertEqual(lines.withLock { $0 }, ["services: media did not stop within 10.0 s; exiting without waiting for it (nor for session)"])
        stuck.open()
    }
}
