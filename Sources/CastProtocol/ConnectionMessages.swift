import JSON
/// Payloads of the virtual-connection and heartbeat namespaces.
public enum ConnectionMessages {
    /// Who the sender is, as announced in CONNECT.
    public struct SenderInfo: Sendable, Equatable {
        public var userAgent: String
        public var version: String
        public var systemVersion: String

        public init(userAgent: String, version: String, systemVersion: String) {
            self.userAgent = userAgent
            self.version = version
            self.systemVersion = systemVersion
        }
    }

    /// `CONNECT` on a strong connection (connType 0) from a Linux sender (platform 6).
    public static func connect(_ info: SenderInfo) -> JSONValue {
        [
            "type": "CONNECT",
            "userAgent": .string(info.userAgent),
            "connType": 0,
            "origin": [:],
            "senderInfo": [
                "sdkType": 2,
                "version": .string(info.version),
                "browserVersion": .string(info.version),
                "platform": 6,
                "connectionType": 1,
                "systemVersion": .string(info.systemVersion),
            ],
        ]
    }

    /// `CLOSE` of a virtual connection (reason 5: closed by the peer, as Chromium sends).
    public static let close: JSONValue = ["type": "CLOSE", "reasonCode": 5]

    public static let ping: JSONValue = ["type": "PING"]
    public static let pong: JSONValue = ["type": "PONG"]
}
