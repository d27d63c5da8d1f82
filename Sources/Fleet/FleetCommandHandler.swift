/// Where MQTT commands go: the daemon runs them as console command lines.
/// The fleet layer knows nothing of Cast; this seam is all it sees.
public protocol FleetCommandHandler: Sendable {
    /// Runs one console-language command line (e.g. "pause", "vol 30",
    /// "preset 3", "checkout") received over MQTT.
    func run(_ line: String) async -> FleetReply
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
