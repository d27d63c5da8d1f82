import SystemSupport
import TestSupport
import XCTest

/// A timer armed by one task and slept by another: `sleep(until:)` keeps the
/// deadline when the clock moves before the sleeping task registers, where
/// `sleep(for:)` with a delay worked out earlier would end late.
final class TimeSourceTests: XCTestCase {
    func testSleepUntilKeepsADeadlineSetBeforeTheClockMoved() async throws {
        let clock = ManualTimeSource()
        let deadline = clock.now + .seconds(5)
        // The clock moves on before the sleeper exists, as on a busy machine.
        await clock.advance(by: .seconds(3), step: .seconds(3))
        let woke = Task { try await clock.sleep(until: deadline) }
        let registered = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(registered)
        await clock.advance(by: .seconds(2), step: .seconds(2))
        let ended = await eventually { clock.sleeperCount == 0 }
        XCTAssertTrue(ended, "the sleeper woke at its deadline, 2 s after it registered, not 5 s")
        try await woke.value
    }

    func testSleepUntilAPassedDeadlineReturnsAtOnce() async throws {
        let clock = ManualTimeSource()
        let deadline = clock.now + .seconds(1)
        await clock.advance(by: .seconds(2), step: .seconds(2))
        try await clock.sleep(until: deadline)
        XCTAssertEqual(clock.sleeperCount, 0)
    }

    func testTheSystemClockSleepsUntilADeadline() async throws {
        let clock = SystemTimeSource()
        let deadline = clock.now + .milliseconds(50)
        try await clock.sleep(until: deadline)
        XCTAssertGreaterThanOrEqual(clock.now, deadline)
    }
}
