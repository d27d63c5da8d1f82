import SystemSupport
import XCTest

/// SplitMix64: a seeded generator, so the jittered delays are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

final class BackoffJitterTests: XCTestCase {
    /// Issue 8 §6: at the cap the jitter went only downward (24–30 s), so
    /// boards retrying at the cap drifted together towards the low end.
    /// It is now spread ±20 % around the cap like every other step.
    func testJitterAtTheCapIsSymmetricAroundTheCap() {
        var generator = SeededGenerator(state: 42)
        var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30), jitter: 0.2)
        for _ in 0..<7 { _ = backoff.nextDelay(using: &generator) }  // 0.5 s ... 16 s, then at the cap
        XCTAssertEqual(backoff.nominalDelay, .seconds(30))
        let delays = (0..<2_000).map { _ in backoff.nextDelay(using: &generator).seconds }
        XCTAssertGreaterThanOrEqual(delays.min() ?? 0, 24)
        XCTAssertLessThanOrEqual(delays.max() ?? 0, 36)
        let above = delays.filter { $0 > 30 }.count
        let below = delays.filter { $0 < 30 }.count
        XCTAssertGreaterThan(above, 800, "delays above the cap: \(above) of \(delays.count)")
        XCTAssertGreaterThan(below, 800, "delays below the cap: \(below) of \(delays.count)")
        XCTAssertGreaterThan(delays.max() ?? 0, 35)
        let mean = delays.reduce(0, +) / Double(delays.count)
        XCTAssertEqual(mean, 30, accuracy: 0.5)
    }

    func testJitterBelowTheCapStaysWithinItsBand() {
        var generator = SeededGenerator(state: 7)
        for _ in 0..<500 {
            var backoff = Backoff(initial: .seconds(2), maximum: .seconds(30), jitter: 0.2)
            let delay = backoff.nextDelay(using: &generator).seconds
            XCTAssertGreaterThanOrEqual(delay, 1.6)
            XCTAssertLessThanOrEqual(delay, 2.4)
        }
        var exact = Backoff(initial: .seconds(2), maximum: .seconds(30), jitter: 0)
        XCTAssertEqual(exact.nextDelay(using: &generator), .seconds(2))
        XCTAssertEqual(exact.nextDelay(using: &generator), .seconds(4))
    }
}
