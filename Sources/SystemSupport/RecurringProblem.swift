/// A problem that recurs while something is retried (a missing daemon,
/// device or adapter). One outage gives one warning: the first problem is a
/// warning, a different one while the outage lasts (lost, then refused) is
/// info, and a mere repeat is debug, so a board without lircd or avahi-daemon
/// does not fill the journal and one failure does not read as several.
public struct RecurringProblem: Sendable {
    private var last: String?

    public init() {}

    /// Logs `problem` to `logger` at the level its novelty deserves.
    public mutating func report(_ problem: String, to logger: Logger) {
        switch last {
        case nil: logger.warning(problem)
        case problem: logger.debug(problem)
        default: logger.info(problem)
        }
        last = problem
    }

    /// The problem is gone: the next one is a warning again.
    public mutating func clear() { last = nil }
}
