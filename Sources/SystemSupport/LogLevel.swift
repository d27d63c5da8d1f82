/// How much the daemon says. Ordered from the most to the least severe.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7
    case trace = 8

    /// Parses `error`, `warning` (or `warn`), `notice`, `info`, `debug`, `trace`.
    public init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "warning", "warn": self = .warning
        case "notice": self = .notice
        case "info": self = .info
        case "debug": self = .debug
        case "trace": self = .trace
        default: return nil
        }
    }

    /// The name used in config files, on the console and in log lines.
    public var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        case .trace: "trace"
        }
    }

    /// The syslog priority journald reads from a `<N>` line prefix.
    var syslogPriority: Int { min(rawValue, 7) }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
