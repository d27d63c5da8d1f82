#if canImport(Glibc)
import Glibc
#endif

/// The `[mqtt]` section's settings: which broker, who we are there, and what
/// we publish. Read from the section by `init(from:hostname:)` (see the
/// README, "Fleet and Home Assistant"); `MQTTSection` is the section itself.
public struct FleetSettings: Sendable, Equatable {
    /// `mqtt://HOST[:PORT]` (default port 1883) or `mqtts://HOST[:PORT]` (8883).
    public struct Broker: Sendable, Equatable, CustomStringConvertible {
        public var host: String
        public var port: UInt16
        public var tls: Bool

        public init(host: String, port: UInt16, tls: Bool) {
            self.host = host
            self.port = port
            self.tls = tls
        }

        public var description: String {
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "\(tls ? "mqtts" : "mqtt")://\(shownHost):\(port)"
        }
    }

    public var broker: Broker
    /// PEM CA bundle for `mqtts://`; nil uses the system's CA store.
    public var caFile: String?
    /// Client certificate and key (PEM), both or neither.
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    /// A file holding the password on its first line; mode 0600 (or stricter).
    public var passwordFile: String?
    /// The box's name in topics: `<prefix>/<room>/...`.
    public var room: String
    /// The MQTT client id; fixed, so the broker keeps the session across reconnects.
    public var clientID: String
    public var topicPrefix: String
    /// Seconds between keepalive pings (5...3600).
    public var keepalive: Int
    /// Groups this room answers on `<prefix>/group/<name>/cmd`.
    public var groups: [String]
    /// Whether `creds ...` commands are accepted over MQTT.
    public var allowCredentials: Bool
    /// Whether Home Assistant discovery config is published.
    public var haDiscovery: Bool
    public var haPrefix: String
    /// Preset numbers (0...9) that get a button in Home Assistant; nil: every configured preset.
    public var haPresets: [Int]?
    /// The Home Assistant area the device is suggested for; nil: the room.
    public var area: String?
    /// How long a command that needs the receiver waits for the Cast link
    /// (one sent during an outage arrives at reconnect); zero: not at all.
    public var commandWait: Duration = FleetSettings.defaultCommandWait
    public static let defaultCommandWait: Duration = .seconds(120)

    public init(broker: Broker, room: String, clientID: String? = nil, topicPrefix: String = "castgw",
                keepalive: Int = 60, groups: [String] = [], caFile: String? = nil, certFile: String? = nil,
                keyFile: String? = nil, username: String? = nil, passwordFile: String? = nil,
                allowCredentials: Bool = false, haDiscovery: Bool = true, haPrefix: String = "homeassistant",
                haPresets: [Int]? = nil, area: String? = nil) {
        self.broker = broker
        self.room = room
        self.clientID = clientID ?? room
        self.topicPrefix = topicPrefix
        self.keepalive = keepalive
        self.groups = groups
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.username = username
        self.passwordFile = passwordFile
        self.allowCredentials = allowCredentials
        self.haDiscovery = haDiscovery
        self.haPrefix = haPrefix
        self.haPresets = haPresets
        self.area = area
    }

    /// The topics this configuration uses.
    public var topics: FleetTopics { FleetTopics(prefix: topicPrefix, room: room, groups: groups) }

    /// This machine's host name (the default room), or nil if it has none.
    public static func hostname() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A fully qualified name: the first label is the room.
        let label = name.split(separator: ".").first.map(String.init) ?? ""
        return label.isEmpty ? nil : label
    }
}
