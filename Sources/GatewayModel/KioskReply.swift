/// What a kiosk command answers when it was carried out: what it did, and
/// the steps of it that failed while the rest was done (a checkout that
/// could not set the volume). A command that was not carried out throws
/// instead. Front ends render it; none reads success out of the lines.
public struct KioskReply: Sendable, Equatable {
    public var lines: [String]
    public var problems: [KioskProblem]

    public init(_ lines: [String], problems: [KioskProblem] = []) {
        self.lines = lines
        self.problems = problems
    }
}

/// One step of a kiosk command that failed while the command went on.
public struct KioskProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Checkout could not stop the app on the TV (a guest's may still show).
        case appNotStopped = "app-not-stopped"
        /// Checkout could not set the kiosk's volume.
        case volumeNotSet = "volume-not-set"
    }

    public let code: Code
    /// Says which step failed, why, and on what.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

extension KioskReply: ExpressibleByArrayLiteral {
    /// A reply of these lines, with nothing failed.
    public init(arrayLiteral lines: String...) {
        self.init(lines)
    }
}
