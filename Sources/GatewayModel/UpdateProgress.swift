/// How an update asked for from the fleet is going, as the root helper
/// (deploy/rauc/install-request) writes it: key=value lines in
/// /run/cast-gateway-update/progress, replaced atomically at each step.
/// The gateway only shows it: `status`, the MQTT state's `updateProgress`,
/// Home Assistant's update entity.
public struct UpdateProgress: Sendable, Equatable {
    public enum Phase: String, Sendable, Equatable {
        /// The gateway wrote the request; the helper has not taken it yet.
        case requested
        case downloading
        /// Checking the download's SHA-256.
        case verifying
        /// `rauc install` writes the other slot.
        case installing
        /// Installed into the other slot; the box reboots into it (or waits for a reboot).
        case installed
        case failed
    }

    /// A progress file that is not one.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public var phase: Phase
    /// Of the current phase, 0-100; nil when not known.
    public var percent: Int?
    /// The bundle's version, once known (announced, or read from the bundle).
    public var version: String?
    /// What is happening or what went wrong, in words.
    public var message: String?
    /// When the helper wrote it (ISO 8601, UTC).
    public var time: String?

    public static let maximumMessageLength = 256

    public init(phase: Phase, percent: Int? = nil, version: String? = nil, message: String? = nil, time: String? = nil) {
        self.phase = phase
        self.percent = percent
        self.version = version
        self.message = message
        self.time = time
    }

    /// Reads the helper's lines; unknown keys are skipped, a bad state is an error.
    public init(parsing text: String) throws(ParseError) {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let equals = line.firstIndex(of: "=") else {
                throw ParseError(description: "a line is not key=value")
            }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let state = values["state"] else { throw ParseError(description: "it has no state= line") }
        guard let phase = Phase(rawValue: state) else {
            throw ParseError(description: "state=\(String(state.prefix(20).filter { $0.isASCII && $0 >= " " })) is not one of requested, downloading, verifying, installing, installed, failed")
        }
        self.phase = phase
        percent = values["percent"].flatMap { Int($0) }.map { min(100, max(0, $0)) }
        version = values["version"].flatMap { value in
            !value.isEmpty && value.count <= UpdateReport.maximumVersionLength && value.allSatisfy({ $0.isASCII && $0 > " " && $0 != "\u{7F}" })
                ? value : nil
        }
        message = values["message"].flatMap { value in
            let clean = String(value.prefix(UpdateProgress.maximumMessageLength).map { $0.isASCII && $0 < " " || $0 == "\u{7F}" ? " " : $0 })
            return clean.isEmpty ? nil : clean
        }
        time = values["time"].flatMap { $0.count <= 32 && $0.allSatisfy({ $0.isASCII && $0 > " " }) ? $0 : nil }
    }

    /// Whether the helper is still at work (a new request would be refused).
    public var isActive: Bool {
        switch phase {
        case .requested, .downloading, .verifying, .installing: true
        case .installed, .failed: false
        }
    }

    /// One line for people: `downloading 2.1: 40%`, `installed 2.1; rebooting into it`.
    public var summary: String {
        let what = version.map { " \($0)" } ?? ""
        let detail = message.map { ": \($0)" } ?? ""
        switch phase {
        case .requested: return "update\(what) requested; waiting for the installer"
        case .downloading, .verifying, .installing:
            return "\(phase.rawValue)\(what)" + (percent.map { ": \($0)%" } ?? "") + (message.map { " (\($0))" } ?? "")
        case .installed: return "installed\(what)\(detail.isEmpty ? "; it runs after the next reboot" : detail)"
        case .failed: return "the update\(what) failed\(detail)"
        }
    }

    /// A failed update as a problem worth showing.
    public var problem: String? {
        phase == .failed ? summary : nil
    }
}
