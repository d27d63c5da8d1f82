/// Exponential backoff with jitter for reconnecting to anything that went away
/// (a Cast device, lircd, a CEC adapter, avahi-daemon).
///
/// Delays start at `initial` and double up to `maximum`. Each is spread by
/// ±`jitter` (a fraction) around that nominal delay, the cap included (30 s
/// with 0.2 gives 24–36 s), so that many boards restarting together do not
/// retry in lock-step: a jitter clipped at the cap would spread them only
/// downward and bunch them at the cap. `reset()` after a success starts over.
public struct Backoff: Sendable {
    public let initial: Duration
    public let maximum: Duration
    public let jitter: Double
    public private(set) var attempts = 0

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30), jitter: Double = 0.2) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The un-jittered delay before the next attempt.
    public var nominalDelay: Duration {
        var delay = initial
        for _ in 0..<min(attempts, 32) {
            delay = delay * 2
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }

    /// Returns the delay to wait before the next attempt and counts the attempt.
    public mutating func nextDelay<R: RandomNumberGenerator>(using generator: inout R) -> Duration {
        let nominal = nominalDelay.seconds
        attempts += 1
        guard jitter > 0 else { return .seconds(fractional: nominal) }
        let factor = Double.random(in: (1 - jitter)...(1 + jitter), using: &generator)
        return .seconds(fractional: nominal * factor)
    }

    public mutating func nextDelay() -> Duration {
        var generator = SystemRandomNumberGenerator()
        return nextDelay(using: &generator)
    }

    /// Starts over from `initial` (call after a successful connection).
    public mutating func reset() { attempts = 0 }
}
