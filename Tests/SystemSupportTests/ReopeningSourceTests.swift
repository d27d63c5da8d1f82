#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import ServiceLifecycle
import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// A device whose opening fails a set number of times, then serves until told it is lost.
private final class FlakyDevice: ReopenableDevice, Sendable {
    let failuresLeft: Mutex<Int>
    let opens = Mutex(0)
    let lose: AsyncStream<String>
    let queue: DispatchQueue

    init(failuresLeft: Int, lose: AsyncStream<String>, queue: DispatchQueue) {
        self.failuresLeft = Mutex(failuresLeft)
        self.lose = lose
        self.queue = queue
    }

    func open() throws -> Int {
        dispatchPrecondition(condition: .onQueue(queue))  // blocking work never runs on the cooperative pool
        opens.withLock { $0 += 1 }
        let fail = failuresLeft.withLock { count -> Bool in
            guard count > 0 else { return false }
            count -= 1
            return true
        }
        if fail { throw DeviceProblem.retry("not there") }
        return 7
    }

    func serve(_ handle: Int, on queue: DispatchQueue) async -> String {
        for await reason in lose { return reason }
        return "stopped"
    }
}

final class ReopeningSourceTests: XCTestCase {
    func testBackoffRunsOnTheInjectedClockAndResetsAfterASuccess() async {
        let clock = ManualTimeSource()
        let queue = DispatchQueue(label: "test.device")
        let (lose, loseContinuation) = AsyncStream.makeStream(of: String.self)
        let device = FlakyDevice(failuresLeft: 3, lose: lose, queue: queue)
        let reports = Mutex<[String?]>([])
        let source = ReopeningSource(name: "flaky", device: device, queue: queue, timeSource: clock,
                                     backoff: Backoff(initial: .milliseconds(500), maximum: .seconds(30), jitter: 0)) { problem in
            reports.withLock { $0.append(problem) }
        }
        let running = RunningService(source)
        // 0.5 s, 1 s, 2 s between the failed attempts, then it opens.
        for (attempt, delay) in [(1, 500), (2, 1000), (3, 2000)] {
            let waiting = await eventually { device.opens.withLock { $0 } == attempt && clock.sleeperCount == 1 }
            XCTAssertTrue(waiting, "attempt \(attempt)")
            await clock.advance(by: .milliseconds(delay - 1))
            XCTAssertEqual(device.opens.withLock { $0 }, attempt, "retried before its backoff")
            await clock.advance(by: .milliseconds(1))
        }
        let opened = await eventually { reports.withLock { $0.last } == .some(nil) }
        XCTAssertTrue(opened, "\(reports.withLock { $0 })")
        XCTAssertEqual(reports.withLock { $0 }, ["not there", "not there", "not there", nil])
        // Lost after a success: the backoff starts over at 0.5 s.
        loseContinuation.yield("unplugged")
        let lost = await eventually { reports.withLock { $0.last } == "unplugged" && clock.sleeperCount == 1 }
        XCTAssertTrue(lost)
        await clock.advance(by: .milliseconds(500))
        let reopened = await eventually { device.opens.withLock { $0 } == 5 }
        XCTAssertTrue(reopened)
        await running.stop()
    }

    func testAPermanentProblemIsReportedOnceAndNotRetried() async {
        let clock = ManualTimeSource()
        final class Refused: ReopenableDevice, Sendable {
            let opens = Mutex(0)
            func open() throws -> Int {
                opens.withLock { $0 += 1 }
                throw DeviceProblem.permanent("the monitor role needs another adapter")
            }
            func serve(_ handle: Int, on queue: DispatchQueue) async -> String { "unreachable" }
        }
        let device = Refused()
        let reports = Mutex<[String?]>([])
        let running = RunningService(ReopeningSource(name: "cec", device: device, queue: DispatchQueue(label: "test.cec"),
                                                     timeSource: clock) { problem in reports.withLock { $0.append(problem) } })
        let reported = await eventually { reports.withLock { $0.count } == 1 }
        XCTAssertTrue(reported)
        await clock.advance(by: .seconds(120), step: .seconds(10))
        XCTAssertEqual(device.opens.withLock { $0 }, 1)
        await running.stop()
    }

    func testLineSplitterJoinsChunksDropsOverlongLinesAndHandlesCRLF() {
        var splitter = LineSplitter(maximumLength: 8)
        XCTAssertEqual(splitter.feed(Array("ab".utf8)), [])
        XCTAssertEqual(splitter.feed(Array("c\r\nde\n".utf8)), [.line("abc"), .line("de")])
        XCTAssertEqual(splitter.feed(Array("0123456789\nok\n".utf8)), [.tooLong, .line("ok")])
        XCTAssertEqual(splitter.feed(Array("tail".utf8)), [])
        XCTAssertEqual(splitter.finish(), "tail")
    }
}
