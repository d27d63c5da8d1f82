/// A usage error on the command line: the message says what was wrong.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads `--flag`, `--option VALUE` / `--option=VALUE` and positional
/// arguments, and rejects anything it was not asked about.
public struct ArgumentReader {
    private var remaining: [String]
    private var positionals: [String] = []

    public init(_ arguments: some Sequence<String>) {
        remaining = Array(arguments)
    }

    /// Whether `--name` was given (removes it).
    public mutating func flag(_ name: String) -> Bool {
        guard let index = remaining.firstIndex(of: name) else { return false }
        remaining.remove(at: index)
        return true
    }

    /// The value of `--name VALUE` or `--name=VALUE` (removes it); nil if absent.
    public mutating func option(_ name: String) throws -> String? {
        if let index = remaining.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let value = String(remaining[index].dropFirst(name.count + 1))
            remaining.remove(at: index)
            return value
        }
        guard let index = remaining.firstIndex(of: name) else { return nil }
        guard index + 1 < remaining.count else { throw UsageError("\(name) needs a value") }
        let value = remaining[index + 1]
        // `--timeout --credentials=S` forgot the value: the next option is not it.
        // It is not shown either: for `--credentials` it would be the secret.
        if value.hasPrefix("--") { throw UsageError("\(name) needs a value before the next option") }
        remaining.removeSubrange(index...index + 1)
        return value
    }

    /// An integer option within `range`.
    public mutating func intOption(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try option(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// What an error may show of an option: only its name. The value of
    /// `--name=VALUE` may be a secret, and so may anything that does not look
    /// like an option name at all (nil).
    static func optionName(_ argument: String) -> String? {
        let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
        let looksLikeAName = name.count <= 32 && name.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        return looksLikeAName ? name : nil
    }

    /// The positional arguments left after all options were read; rejects
    /// unknown `--options`.
    public mutating func finish(maximumPositionals: Int) throws -> [String] {
        for argument in remaining {
            if argument.hasPrefix("--") || (argument.hasPrefix("-") && argument.count > 1 && Double(argument) == nil) {
                throw UsageError(Self.optionName(argument).map { "unknown option \($0)" } ?? "an unknown option (not shown: it may hold a value); see --help")
            }
        }
        guard remaining.count <= maximumPositionals else {
            throw UsageError("unexpected argument '\(remaining[maximumPositionals])'")
        }
        positionals = remaining
        remaining = []
        return positionals
    }
}

/// sysexits(3) codes used by both executables.
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
    public static let unavailable: Int32 = 69
    public static let software: Int32 = 70
    public static let config: Int32 = 78
}
