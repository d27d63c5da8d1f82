/// The page's mDNS service: `_http._tcp` under the box's name, on the port
/// the interface listens on, with `path=/` (RFC 6763's key for HTTP), so a
/// phone's or laptop's service browser lists the box by name.
public struct WebServiceRecord: Sendable, Equatable {
    public static let serviceType = "_http._tcp"
    /// The page over HTTPS (`[web] tls`).
    public static let secureServiceType = "_https._tcp"
    /// The instance name when the box has no host name.
    public static let fallbackName = "cast-gateway"

    public let name: String
    public let port: UInt16
    public let txt: [String]
    public let type: String

    public init(name: String, port: UInt16, txt: [String] = ["path=/"], type: String = WebServiceRecord.serviceType) {
        self.type = type
        self.name = name
        self.port = port
        self.txt = txt
    }
}

extension WebSettings {
    /// `[web] mdns`: whether the page is published over mDNS.
    public enum MDNS: String, Sendable, Equatable {
        /// When it listens on an address other hosts can reach (not loopback).
        case auto
        case on
        case off
    }

    /// What to publish once listening on `port` (the bound one: `:0` picks
    /// it), or nil: `mdns = off`, or `auto` on a loopback address, which no
    /// other host could open.
    public func serviceRecord(hostName: String?, port: UInt16) -> WebServiceRecord? {
        switch mdns {
        case .off: return nil
        case .auto where listen.host.hasPrefix("127.") || listen.host == "::1": return nil
        case .auto, .on: break
        }
        guard port != 0 else { return nil }
        let name = hostName.flatMap { $0.isEmpty ? nil : $0 } ?? WebServiceRecord.fallbackName
        return WebServiceRecord(name: name, port: port, type: tls == .off ? WebServiceRecord.serviceType : WebServiceRecord.secureServiceType)
    }
}
