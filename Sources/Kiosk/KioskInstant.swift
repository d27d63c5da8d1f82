/// The clocks as the player read them when an event arrived: the machine
/// reads no clock itself, so tests hand it any instant they like.
public struct KioskInstant: Sendable, Equatable {
    /// The gateway's monotonic time (its `TimeSource`).
    public var now: Duration
    /// Seconds since local midnight (the `WallClock`), for the schedule.
    public var secondOfDay: Int

    public init(now: Duration, secondOfDay: Int) {
        self.now = now
        self.secondOfDay = secondOfDay
    }
}
