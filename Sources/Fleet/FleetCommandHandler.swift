/// Where MQTT commands go: the daemon runs them as console command lines.
/// The fleet layer knows nothing of Cast; this seam is all it sees.
public protocol FleetCommandHandler: Sendable {
    /// Runs one console-language command line (e.g. "pause", "vol 30",
    /// "preset 3", "checkout") received over MQTT.
    func run(_ line: String) async -> FleetReply

    /// How `line` is scheduled. A command sent while the box was away is
    /// delivered at reconnect, often before the receiver is back: those that
    /// need it wait for it (up to `command-wait`) instead of failing.
    func kind(of line: String) -> FleetCommandKind
}

extension FleetCommandHandler {
    public func kind(of line: String) -> FleetCommandKind { .local }
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

/// The answer to one command: whether it worked, and the console's lines.
public struct FleetReply: Sendable, Equatable {
    public var ok: Bool
    public var lines: [String]

    public init(ok: Bool, lines: [String]) {
        self.ok = ok
        self.lines = lines
    }
}
