#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A named logger writing one line per message to standard error.
///
/// Under systemd (`JOURNAL_STREAM` set) each line starts with a `<N>` syslog
/// priority so journald records the level; on a terminal lines carry a UTC
/// time stamp and the level name instead. Every line is written with a single
/// `write(2)`, so lines from different threads never interleave.
public struct Logger: Sendable {
    /// The subsystem shown in every line, e.g. `channel` or `config`.
    public let label: String

    public init(label: String) {
        self.label = label
    }

    /// The process-wide threshold; messages less severe than it are dropped.
    public static var level: LogLevel {
        get { sharedLevel.withLock { $0 } }
        set { sharedLevel.withLock { $0 = newValue } }
    }

    /// Redirects log lines (tests capture them); `nil` restores standard error.
    public static func setSink(_ sink: (@Sendable (LogLevel, String) -> Void)?) {
        sharedSink.withLock { $0 = sink }
    }

    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func trace(_ message: @autoclosure () -> String) { log(.trace, message()) }

    /// Whether a message at `level` would be written (to skip costly formatting).
    public func isEnabled(_ level: LogLevel) -> Bool { level <= Logger.level }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard isEnabled(level) else { return }
        // Messages quote strings from the network (titles, reasons, names):
        // escape control characters so no line can be forged, and cap the length.
        let text = "\(label): \(message().escapingControlCharacters(maximumLength: Logger.maximumMessageLength))"
        LogRing.shared.append("\(Logger.timestamp()) \(level.name) \(text)")
        if let sink = Logger.sharedSink.withLock({ $0 }) {
            sink(level, text)
            return
        }
        let line: String
        if Logger.underJournal {
            line = "<\(level.syslogPriority)>\(text)\n"
        } else {
            line = "\(Logger.timestamp()) \(level.name) \(text)\n"
        }
        try? FileDescriptor.standardError.writeAll(Array(line.utf8))
    }

    /// Characters of one message kept in a log line; the rest is summarised.
    public static let maximumMessageLength = 2048

    private static let sharedLevel = Mutex<LogLevel>(.info)
    private static let sharedSink = Mutex<(@Sendable (LogLevel, String) -> Void)?>(nil)
    private static let underJournal: Bool = getenv("JOURNAL_STREAM") != nil

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let millis = Int32(now.tv_nsec / 1_000_000)
        return "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(pad(millis, 3))Z"
    }
}
