/// Monotonic time and sleeping, injected so that heartbeats, timeouts,
/// backoff and blinking can be tested deterministically.
public protocol TimeSource: Sendable {
    /// Time elapsed since an arbitrary fixed origin; never goes backwards.
    var now: Duration { get }
    /// Suspends for `duration`; throws `CancellationError` when cancelled.
    func sleep(for duration: Duration) async throws
    /// Suspends until `now` reaches `deadline` (at once if it has). A timer
    /// armed by one task and slept by another must use this: a relative
    /// delay worked out before the sleeping task runs ends late by however
    /// long that task waited to start, on a busy machine or a moved clock.
    func sleep(until deadline: Duration) async throws
}

extension TimeSource {
    public func sleep(until deadline: Duration) async throws {
        try await sleep(for: deadline - now)
    }
}

/// The real monotonic clock (`CLOCK_MONOTONIC` via `ContinuousClock`).
public struct SystemTimeSource: TimeSource {
    private static let origin = ContinuousClock.now

    public init() {}

    public var now: Duration { ContinuousClock.now - SystemTimeSource.origin }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }

    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: SystemTimeSource.origin + deadline, clock: .continuous)
    }
}

extension Duration {
    /// The duration as fractional seconds.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// `1.5 s`: tenths of a second, for log lines and status text.
    public var secondsText: String {
        let tenths = Int((min(max(seconds, 0), Duration.longest.seconds) * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    /// A duration from fractional seconds (negative and NaN become zero,
    /// anything beyond `longest` becomes `longest`): never traps.
    public static func seconds(fractional value: Double) -> Duration {
        guard value > 0 else { return .zero }  // also NaN
        guard value < longest.seconds else { return longest }
        return .nanoseconds(Int64(value * 1e9))
    }

    /// About 31 years: longer than any timeout or position, and far inside Int64 nanoseconds.
    public static let longest = Duration.seconds(1_000_000_000)
}
