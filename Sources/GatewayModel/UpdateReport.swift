/// What happened to the box's last A/B update, as `commit-slot` wrote it
/// (deploy/rauc/commit-slot: key=value lines in
/// /var/lib/cast-gateway/update/report). The gateway only shows it: status,
/// the MQTT state and Home Assistant.
public struct UpdateReport: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        /// The new slot stayed healthy and was committed.
        case updated
        /// The new slot never committed; U-Boot went back to the old one.
        case failed
        /// The new slot is not healthy; the box restarts to try it again (or fall back).
        case unhealthy
    }

    /// A report that is not one, with what is wrong (the file's path is the caller's).
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public var outcome: Outcome
    /// The update's version.
    public var version: String
    /// The version the box runs now.
    public var running: String
    /// What ran before an update that was committed.
    public var previous: String?
    /// When commit-slot wrote it (ISO 8601, UTC).
    public var time: String?

    /// The longest version string shown: commit-slot takes it from a bundle.
    public static let maximumVersionLength = 64

    public init(outcome: Outcome, version: String, running: String, previous: String? = nil, time: String? = nil) {
        self.outcome = outcome
        self.version = version
        self.running = running
        self.previous = previous
        self.time = time
    }

    /// Reads commit-slot's lines; unknown keys are skipped (a later
    /// commit-slot may write more), a missing or malformed one is an error.
    public init(parsing text: String) throws(ParseError) {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(description: "the line '\(UpdateReport.shown(String(line)))' is not key=value")
            }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let state = values["state"] else { throw ParseError(description: "it has no state= line") }
        guard let outcome = Outcome(rawValue: state) else {
            throw ParseError(description: "state=\(UpdateReport.shown(state)) is not updated, failed or unhealthy")
        }
        func version(_ key: String) throws(ParseError) -> String {
            guard let value = values[key], !value.isEmpty else { throw ParseError(description: "it has no \(key)= line") }
            guard value.count <= UpdateReport.maximumVersionLength, value.allSatisfy({ $0.isASCII && $0 > " " && $0 != "\u{7F}" }) else {
                throw ParseError(description: "\(key)= is not a version (printable ASCII, at most \(UpdateReport.maximumVersionLength) characters)")
            }
            return value
        }
        self.outcome = outcome
        self.version = try version("version")
        self.running = try version("running")
        self.previous = values["previous"] == nil ? nil : try version("previous")
        self.time = values["time"].flatMap { $0.count <= 32 && $0.allSatisfy({ $0.isASCII && $0 > " " }) ? $0 : nil }
    }

    /// One line for people: `updated to 2.1 (was 2.0)`, `the update to 2.1 failed; back on 2.0`.
    public var summary: String {
        switch outcome {
        case .updated: "updated to \(version)" + (previous.map { " (was \($0))" } ?? "")
        case .failed: "the update to \(version) failed; back on \(running)"
        case .unhealthy: "\(version) is not healthy; the box restarts to try it again, then goes back"
        }
    }

    /// The report as a problem worth showing; nil once an update went well.
    public var problem: String? {
        outcome == .updated ? nil : summary
    }

    private static func shown(_ text: String) -> String {
        String(text.prefix(40).map { $0.isASCII && $0 >= " " && $0 != "\u{7F}" ? $0 : "?" })
    }
}
