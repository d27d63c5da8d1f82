import SystemSupport
/// `[log]`: how much the daemon logs.
public struct LogSettings: SettingsSection {
    public static let sectionName = "log"
    public var level = LogLevel.info

    public init() {}

    public init(from section: inout ConfigSection) throws(ConfigError) {
        if let level = try section.value("level", expected: "one of \(LogLevel.allCases.map(\.name).joined(separator: ", "))",
                                         LogLevel.init(name:)) {
            self.level = level
        }
    }
}
