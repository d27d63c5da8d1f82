/// Slows a password guesser: after `allowedFailures` wrong passwords within
/// `window`, every attempt is refused, right or wrong, until the oldest of
/// them is `window` old. One throttle for the whole interface (not per
/// address: a guest can change addresses; the cost is that a guest can keep
/// the login locked, which a technician fixes over ssh or by waiting).
/// Pure: the caller gives the time.
public struct LoginThrottle: Sendable, Equatable {
    public static let allowedFailures = 5
    public static let window: Duration = .seconds(60)

    private var failures: [Duration] = []

    public init() {}

    /// nil when an attempt may be checked now; else how long until one may.
    public mutating func refusal(at now: Duration) -> Duration? {
        failures.removeAll { now - $0 >= LoginThrottle.window }
        guard failures.count >= LoginThrottle.allowedFailures, let oldest = failures.first else { return nil }
        return LoginThrottle.window - (now - oldest)
    }

    public mutating func failed(at now: Duration) {
        failures.append(now)
        if failures.count > LoginThrottle.allowedFailures { failures.removeFirst(failures.count - LoginThrottle.allowedFailures) }
    }

    public mutating func succeeded() {
        failures.removeAll()
    }

    /// Wrong passwords counted now.
    public var recentFailures: Int { failures.count }
}
