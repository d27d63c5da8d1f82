/// A problem that recurs while something is retried (a missing daemon,
/// device or adapter): logged as a warning when it first appears or changes,
/// and at debug level while it merely repeats, so a board without lircd or
/// avahi-daemon does not fill the journal.
public struct RecurringProblem: Sendable {
    private var last: String?

    public init() {}

    /// Logs `problem` to `logger` at the level its novelty deserves.
    public mutating func report(_ problem: String, to logger: Logger) {
        if problem == last {
            logger.debug(problem)
        } else {
            last = problem
            logger.warning(problem)
        }
    }

    /// The problem is gone: the next one is a warning again.
    public mutating func clear() { last = nil }
}
