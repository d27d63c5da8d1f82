import CastProtocol

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

extension SimulatorFaults {
    /// Bytes a broken or hostile receiver writes, sent by the `garbage`
    /// control command to every connected sender.
    public enum Garbage: String, Sendable, CaseIterable {
        /// Well-framed messages a sender must skip and stay connected: an
        /// undecodable body, a payload that is not JSON, a JSON array, an
        /// unknown namespace and a binary payload on the receiver namespace.
        case frames
        /// A frame header announcing 2 GiB: the framing is lost, so a sender
        /// must drop the link (and reconnect).
        case oversized

        public var bytes: [UInt8] {
            switch self {
            case .frames:
                func frame(_ namespace: String, _ payload: CastMessage.Payload) -> [UInt8] {
                    (try? CastMessage(sourceID: CastEndpoint.platformReceiver, destinationID: CastEndpoint.broadcast,
                                      namespace: namespace, payload: payload).framed()) ?? []
                }
                return [0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
                    + frame(CastNamespace.receiver, .string("not json {"))
                    + frame(CastNamespace.receiver, .string("[1,2,3]"))
                    + frame("urn:x-cast:com.example.unknown", .string(#"{"type":"HELLO"}"#))
                    + frame(CastNamespace.receiver, .binary([0xDE, 0xAD, 0xBE, 0xEF]))
            case .oversized:
                return [0x7F, 0xFF, 0xFF, 0xFF, 0x00, 0x01, 0x02]
            }
        }
    }
}
