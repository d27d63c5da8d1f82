import SystemSupport
/// A problem in a config file, located by file, line and key.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public let file: String
    /// 1-based line, or nil for problems with the file as a whole.
    public let line: Int?
    /// `[section] key`, or nil.
    public let key: String?
    public let message: String

    public init(file: String, line: Int?, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    /// `gateway.conf:12: [cast] app-id: must not be empty`
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let key { text += ": \(key)" }
        return text + ": " + message
    }
}
