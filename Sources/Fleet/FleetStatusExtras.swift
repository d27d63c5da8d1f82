/// What the state topic reports besides `GatewayState`: facts about the
/// process that the gateway's state does not carry.
public struct FleetStatusExtras: Sendable, Equatable {
    /// The gateway's version string.
    public var version: String
    /// When the gateway started, on the service's `TimeSource` (uptime = now - this).
    public var startedAt: Duration
    /// The remote inputs configured (`lirc`, `cec`, `evdev`); each is reported
    /// `ok` unless `GatewayState.inputProblems` says otherwise.
    public var inputs: [String]

    public init(version: String, startedAt: Duration, inputs: [String] = []) {
        self.version = version
        self.startedAt = startedAt
        self.inputs = inputs
    }
}
