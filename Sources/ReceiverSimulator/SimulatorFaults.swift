/// Misbehaviour the simulator can be told to show, for tests and for
/// installers checking how a gateway copes.
public struct SimulatorFaults: Sendable, Equatable {
    /// Close each connection after it has received this many messages.
    public var dropAfterMessages: Int?
    /// Go silent on the heartbeat: answer no PING and send none.
    public var ignorePings = false
    /// Answer LAUNCH with LAUNCH_ERROR and this reason...
    public var launchErrorReason: String?
    /// ...this many times (nil: every time).
    public var launchErrorCount: Int?
    /// Answer LOAD with LOAD_FAILED.
    public var failLoads = false
    /// Delay every reply by this long.
    public var replyDelay: Duration = .zero
    /// Write frames one byte per write (exercises the sender's frame reassembly).
    public var writeByteByByte = false
    /// Answer device-auth challenges wrongly in this way.
    public var deviceAuthFault: DeviceAuthFault?

    public init() {}
}
