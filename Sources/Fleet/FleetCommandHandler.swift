/// Where MQTT commands go. The fleet layer knows nothing of Cast, nor of
/// the command language: this seam is all it sees.
public protocol FleetCommandHandler: Sendable {
    /// Reads one command line (e.g. "pause", "vol 30", "preset 3",
    /// "checkout") received over MQTT, once, when it arrives.
    func prepare(_ line: String) -> FleetCommand
}

/// A command read from a payload: how it is scheduled, and how it runs.
public struct FleetCommand: Sendable {
    /// The reply, once it is known.
    public typealias Reply = @Sendable () async -> FleetReply

    /// A command sent while the box was away is delivered at reconnect,
    /// often before the receiver is back: those that need it wait for it (up
    /// to `command-wait`) instead of failing.
    public let kind: FleetCommandKind
    /// Takes the command in; await the result for its reply. Called
    /// directly (no forwarding method): it is on every command's route.
    public let start: @Sendable () async -> Reply

    /// `start` takes the command in, in order, and returns how to wait for
    /// its reply: commands run one at a time, but a volume step or seek is
    /// taken in at once (and coalesced), so a burst of them is not sent one
    /// request each; the replies still go out in order.
    public init(kind: FleetCommandKind, start: @escaping @Sendable () async -> Reply) {
        self.kind = kind
        self.start = start
    }

    /// A command whose reply is known when it has run.
    public init(kind: FleetCommandKind = .local, run: @escaping @Sendable () async -> FleetReply) {
        self.kind = kind
        start = {
            let reply = await run()
            return { reply }
        }
    }
}

/// How a command is scheduled.
public enum FleetCommandKind: Sendable, Equatable {
    /// Only shows something (`status`, `version`): runs at once, even while
    /// commands wait for the receiver (reordering it changes nothing).
    case query
    /// Changes something without the receiver (`log debug`, `use NAME`):
    /// runs in order, at once unless a command ahead of it waits.
    case local
    /// Needs the Cast link (`pause`, `checkout`, `cast URL`): waits, in
    /// order, until the link is connected or `command-wait` has passed.
    case needsReceiver
}

/// The answer to one command as MQTT sends it: whether it worked, and the console's lines.
public struct FleetReply: Sendable, Equatable {
    public var ok: Bool
    public var lines: [String]

    public init(ok: Bool, lines: [String]) {
        self.ok = ok
        self.lines = lines
    }
}
