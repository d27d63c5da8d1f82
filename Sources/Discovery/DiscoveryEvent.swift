import GatewayModel

/// What the mDNS browser reports, in order.
public enum DiscoveryEvent: Sendable, Equatable {
    /// A service was resolved (new, or changed address, port or TXT).
    case resolved(ResolvedService)
    /// A service went away (goodbye, or its records expired).
    case removed(serviceName: String, interface: Int32, protocolFamily: Int32)
    /// The browser (re)started: services it does not report again before
    /// `synchronized` are gone.
    case resynchronizing
    /// The browser has reported everything it currently knows.
    case synchronized
    /// Discovery is not possible now (daemon or D-Bus missing); it retries by itself.
    case unavailable(String)
}

/// One resolved `_googlecast._tcp` service on one interface and protocol.
public struct ResolvedService: Sendable, Equatable {
    public var serviceName: String
    public var interface: Int32
    public var protocolFamily: Int32
    public var host: String
    public var port: UInt16
    public var txt: [String: String]

    public init(serviceName: String, interface: Int32, protocolFamily: Int32, host: String, port: UInt16, txt: [String: String]) {
        self.serviceName = serviceName
        self.interface = interface
        self.protocolFamily = protocolFamily
        self.host = host
        self.port = port
        self.txt = txt
    }

    /// Parses `key=value` TXT strings; a key without `=` maps to "". Keys are
    /// case-insensitive (lower-cased); the first occurrence wins (RFC 6763).
    public static func parseTXT(_ entries: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for entry in entries where !entry.isEmpty && !entry.hasPrefix("=") {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0].lowercased()
            if result[key] == nil { result[key] = parts.count > 1 ? String(parts[1]) : "" }
        }
        return result
    }

    /// The device this service describes.
    public var device: CastDevice {
        CastDevice(serviceName: serviceName, id: txt["id"] ?? serviceName, name: txt["fn"] ?? serviceName,
                   model: txt["md"] ?? "", capabilities: CastDevice.Capabilities(rawValue: Int(txt["ca"] ?? "") ?? 0),
                   busy: txt["st"] == "1", runningApp: txt["rs"].flatMap { $0.isEmpty ? nil : $0 },
                   host: host, port: port, txt: txt)
    }
}
