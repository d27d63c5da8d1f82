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

extension KioskReply: ExpressibleByArrayLiteral {
    /// A reply of these lines, with nothing failed.
    public init(arrayLiteral lines: String...) {
        self.init(lines)
    }
}
