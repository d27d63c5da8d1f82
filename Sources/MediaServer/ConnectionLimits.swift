/// How many connections the media server holds, for whom, and how long an
/// idle one stays open. The defaults suit a few receivers on a LAN.
public struct ConnectionLimits: Sendable, Equatable {
    /// All open connections together (libmicrohttpd's own limit).
    public var connections: UInt32
    /// Of `connections`, how many only the receiver's address may use: other
    /// hosts together get at most `connections - receiverReserve`.
    public var receiverReserve: UInt32
    /// Open connections from any one address (the receiver's included).
    public var connectionsPerAddress: UInt32
    /// A connection on which nothing arrives or leaves for this long is closed.
    public var idleTimeoutSeconds: UInt32
    /// Another host's connection that has not sent a whole request head this
    /// long after connecting is closed, however slowly it trickles (0: never).
    public var headDeadlineSeconds: UInt32
    /// Per-connection buffer for the request head (and 414 beyond it).
    public var memoryPerConnection: Int

    public init(connections: UInt32 = 64, receiverReserve: UInt32 = 16, connectionsPerAddress: UInt32 = 16,
                idleTimeoutSeconds: UInt32 = 60, headDeadlineSeconds: UInt32 = 10, memoryPerConnection: Int = 32 * 1024) {
        self.connections = max(connections, 2)
        self.receiverReserve = min(max(receiverReserve, 1), self.connections - 1)
        self.connectionsPerAddress = max(connectionsPerAddress, 1)
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.headDeadlineSeconds = headDeadlineSeconds
        self.memoryPerConnection = memoryPerConnection
    }

    /// Open connections all hosts but the receiver may hold together.
    public var othersLimit: UInt32 { connections - receiverReserve }
}
