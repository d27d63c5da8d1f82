import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// A service that records its lifecycle and can be told to fail.
private final class Probe: Service, Sendable {
    let name: String
    let restartsAfterFailure: Bool
    let journal: Journal
    let failures: Mutex<Int>

    init(_ name: String, journal: Journal, failures: Int = 0, restarts: Bool = true) {
        self.name = name
        self.journal = journal
        self.failures = Mutex(failures)
        self.restartsAfterFailure = restarts
    }

    struct Failure: Error {}

    func run() async throws {
        journal.add("start \(name)")
        let fail = failures.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if fail {
            journal.add("fail \(name)")
            throw Failure()
        }
        // Runs until cancelled, then stops gracefully (and takes a moment to do so).
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        await Task.yield()
        journal.add("stop \(name)")
    }
}

final class Journal: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

final class ServiceGroupTests: XCTestCase {
    func testServicesStartInOrderAndStopInReverse() async {
        let journal = Journal()
        let group = ServiceGroup(services: ["notifier", "session", "lirc", "console"].map { Probe($0, journal: journal) })
        let running = Task { await group.run() }
        let started = await eventually { journal.all.count == 4 }
        XCTAssertTrue(started)
        XCTAssertEqual(journal.all, ["start notifier", "start session", "start lirc", "start console"])
        group.shutdown()
        await running.value
        XCTAssertEqual(Array(journal.all.suffix(4)), ["stop console", "stop lirc", "stop session", "stop notifier"])
    }

    func testAFailingServiceIsRestartedWithBackoffAndNeverStopsTheOthers() async {
        let journal = Journal()
        let clock = ManualTimeSource()
        let group = ServiceGroup(services: [Probe("session", journal: journal), Probe("lirc", journal: journal, failures: 3)],
                                 timeSource: clock, restartBackoff: Backoff(initial: .seconds(1), maximum: .seconds(4), jitter: 0))
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
        await running.value
        XCTAssertEqual(Array(journal.all.suffix(2)), ["stop lirc", "stop session"])
    }

    func testAServiceThatMustNotRestartStaysStoppedAndShutdownStillCompletes() async {
        let journal = Journal()
        let group = ServiceGroup(services: [Probe("session", journal: journal), Probe("cec", journal: journal, failures: 1, restarts: false)])
        let running = Task { await group.run() }
        let failed = await eventually { journal.all.contains("fail cec") }
        XCTAssertTrue(failed)
        group.shutdown()
        await running.value
        XCTAssertEqual(journal.all.filter { $0 == "start cec" }.count, 1)
        XCTAssertEqual(journal.all.last, "stop session")
    }
}
