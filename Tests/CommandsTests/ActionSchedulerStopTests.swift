import GatewayModel
import Commands
import Synchronization
import TestSupport
import XCTest

/// The scheduler owns its lane workers: after `stop()` nothing it was holding
/// back is performed, and no worker is left waiting.
final class ActionSchedulerStopTests: XCTestCase {
    func testStopEndsARateLimitWaitAndDropsTheStepsHeldBack() async {
        let clock = ManualTimeSource()
        let performed = Mutex<[Action]>([])
        let scheduler = ActionScheduler(minimumInterval: .milliseconds(100), timeSource: clock) { action in
            performed.withLock { $0.append(action) }
        }
        await scheduler.submit(.volumeUp(0.05), isRepeat: false)
        let first = await eventually { performed.withLock { $0.count } == 1 }
        XCTAssertTrue(first)
        // The next step waits out the rate limit on the clock.
        await scheduler.submit(.volumeUp(0.05), isRepeat: true)
        let waiting = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(waiting, "the volume worker is not waiting for the rate limit")

        await scheduler.stop()

        XCTAssertEqual(clock.sleeperCount, 0, "a worker still waits on the clock after stop()")
        let idle = await scheduler.isIdle
        XCTAssertTrue(idle)
        await clock.advance(by: .seconds(1))
        await scheduler.submit(.volumeDown(0.05), isRepeat: false)
        await clock.advance(by: .seconds(1))
        XCTAssertEqual(performed.withLock { $0 }, [.volumeUp(0.05)], "an action ran after stop()")
    }

    func testStopWaitsForTheActionInProgressAndDropsThePressWaiting() async {
        let clock = ManualTimeSource()
        let performed = Mutex<[Action]>([])
        let release = Mutex<[CheckedContinuation<Void, Never>]>([])
        let scheduler = ActionScheduler(timeSource: clock) { action in
            performed.withLock { $0.append(action) }
            if action == .toggle { await withCheckedContinuation { continuation in release.withLock { $0.append(continuation) } } }
        }
        await scheduler.submit(.toggle, isRepeat: false)
        await scheduler.submit(.next, isRepeat: false)  // waits for the toggle
        let blocked = await eventually { release.withLock { $0.count } == 1 }
        XCTAssertTrue(blocked)

        let stopped = Mutex(false)
        let stopping = Task {
            await scheduler.stop()
            stopped.withLock { $0 = true }
        }
        // stop() returns only once the toggle has returned.
        let stopStarted = await eventually { await scheduler.stopped }
        XCTAssertTrue(stopStarted)
        XCTAssertFalse(stopped.withLock { $0 }, "stop() returned while an action was still running")
        release.withLock { $0.removeFirst().resume() }
        await stopping.value
        XCTAssertTrue(stopped.withLock { $0 })
        XCTAssertEqual(performed.withLock { $0 }, [.toggle], "the press that waited ran after stop()")
    }
}
