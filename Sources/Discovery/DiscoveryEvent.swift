import GatewayModel
import SystemSupport

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

    /// The device this service describes. Names come from anyone on the LAN:
    /// control characters are escaped and lengths capped before they are shown.
    public var device: CastDevice {
        func shown(_ text: String) -> String { text.escapingControlCharacters(maximumLength: 128) }
        return CastDevice(serviceName: shown(serviceName), id: shown(txt["id"] ?? serviceName), name: shown(txt["fn"] ?? serviceName),
                   model: shown(txt["md"] ?? ""), capabilities: CastDevice.Capabilities(rawValue: Int(txt["ca"] ?? "") ?? 0),
                   busy: txt["st"] == "1", runningApp: txt["rs"].flatMap { $0.isEmpty ? nil : shown($0) },
                   host: host, port: port, txt: txt)
    }
}
