import SystemSupport

/// What a command answers: its lines, or why it failed. Front ends render
/// it (the console as text or a JSON line, MQTT as its reply object); none
/// of them reads success out of the text.
public typealias CommandResult = Result<CommandReply, CommandError>

/// A command that worked: what it shows (`ok`, the status lines...).
public struct CommandReply: Sendable, Equatable {
    public var lines: [String]
    /// What failed of a command that otherwise worked, each said once (a
    /// checkout that could not set the volume); shown after `lines`.
    public var problems: [String]

    public init(_ lines: [String] = ["ok"], problems: [String] = []) {
        self.lines = lines
        self.problems = problems
    }
}

/// Why a command did not work, with a code for scripts and a message for people.
public struct CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The text is not a command (the message gives the expected form).
        case usage
        /// This front end does not take the command (a status-only console, `json` over MQTT).
        case refused
        /// What it needs is not set up or not reachable (no device, no kiosk, no remote input).
        case unavailable
        /// An argument the gateway cannot use (no such preset, track or device).
        case badArgument = "bad-argument"
        /// Carrying it out failed (the receiver refused, timed out or went away).
        case failed
        /// It was taken in but never carried out (the gateway stopped first).
        case notRun = "not-run"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A usage error from parsing.
    public init(_ usage: UsageError) {
        self.init(.usage, usage.message)
    }

    public var description: String { message }
}

extension Result where Success == CommandReply, Failure == CommandError {
    /// The reply as lines of text, as the console prints them and MQTT
    /// repeats them: a failure, and each problem, is one `error: ...` line.
    public var textLines: [String] {
        switch self {
        case .success(let reply): reply.lines + reply.problems.map { "error: \($0)" }
        case .failure(let error): ["error: \(error.message)"]
        }
    }

    /// Whether the command worked, whatever it could not do on the side.
    public var succeeded: Bool {
        if case .success = self { return true }
        return false
    }

    /// Whether it worked entirely: no failure and no problem.
    public var succeededEntirely: Bool {
        if case .success(let reply) = self { return reply.problems.isEmpty }
        return false
    }
}

/// A command taken in by a front end, in order: its result at once, or, for
/// a volume step or seek that the scheduler coalesces, once the request
/// that carried it has been answered. The front end can take the next
/// command in meanwhile (so steps typed or sent in a burst coalesce) and
/// still answer each in order.
public struct PendingResult: Sendable {
    private enum Source: Sendable {
        case known(CommandResult)
        case step(ActionOutcome, failure: @Sendable (any Error) -> CommandError)
    }

    private let source: Source

    /// A result already known.
    public init(_ result: CommandResult) {
        source = .known(result)
    }

    /// A step's result: `ok` once the request that carried it was answered,
    /// else its error as `failure` names it. The outcome is awaited here,
    /// not through a closure, so an answer takes no extra hop.
    public init(step outcome: ActionOutcome, failure: @escaping @Sendable (any Error) -> CommandError) {
        source = .step(outcome, failure: failure)
    }

    public func value() async -> CommandResult {
        switch source {
        case .known(let result):
            return result
        case .step(let outcome, let failure):
            switch await outcome.value() {
            case .success: return .success(CommandReply())
            case .failure(let error): return .failure(failure(error))
            }
        }
    }
}
