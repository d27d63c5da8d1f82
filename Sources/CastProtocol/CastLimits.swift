import JSON
/// Bounds for the numbers a receiver (or anyone on the LAN) sends. Values are
/// clamped where they enter, so that nothing downstream (status lines, LEDs,
/// MQTT, arithmetic on positions) ever sees NaN, infinity or 1e300.
public enum CastLimits {
    /// Positions and durations, in seconds: finite, ≥ 0 and at most a year,
    /// far beyond any real media and far inside every integer type.
    public static let positions: ClosedRange<Double> = 0...31_536_000
    /// Device and stream volume.
    public static let volumeLevels: ClosedRange<Double> = 0...1
    /// The playback rates the Default Media Receiver accepts.
    public static let playbackRates: ClosedRange<Double> = 0.5...2
}

extension JSONValue {
    /// The number clamped into `range`; nil when absent, not a number, or not
    /// finite (the wire's JSON cannot hold NaN, but a parser may round 1e999 up).
    public func number(clampedTo range: ClosedRange<Double>) -> Double? {
        guard case .number(let value) = self, value.isFinite else { return nil }
        return min(max(value, range.lowerBound), range.upperBound)
    }
}
