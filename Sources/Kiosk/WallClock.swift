#if canImport(Glibc)
import Glibc
#endif

/// The local time of day, for the kiosk's schedule. Injected so tests can
/// set 22:59 and step to 23:00; the monotonic `TimeSource` drives sleeping.
public protocol WallClock: Sendable {
    /// Seconds since local midnight, 0..<86400.
    var secondOfDay: Int { get }
}

/// The system's clock in the system's time zone (`/etc/localtime`, `TZ`).
public struct SystemWallClock: WallClock {
    public init() {}

    public var secondOfDay: Int {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return 0 }
        // tm_sec may be 60 on a leap second.
        let seconds = Int(parts.tm_hour) * 3600 + Int(parts.tm_min) * 60 + min(Int(parts.tm_sec), 59)
        return min(max(seconds, 0), Schedule.secondsPerDay - 1)
    }
}
