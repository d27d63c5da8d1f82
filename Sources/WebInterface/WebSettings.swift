import MediaServer
import SystemSupport

/// The web interface's settings, from `[web]`: where it listens and the file
/// holding the password's hash (written by `cast-gateway web-password`).
public struct WebSettings: Sendable, Equatable {
    public var listen: ListenAddress
    /// The file `web-password` wrote: the salted PBKDF2 hash, never the password.
    public var passwordFile: String
    /// A session unused this long is gone; the browser must log in again.
    public var sessionIdleTimeout: Duration
    /// Whether the page is published over mDNS (`_http._tcp`).
    public var mdns: MDNS
    /// Names (or addresses) the page answers to besides the box's own (`Host`; see `WebHostCheck`).
    public var allowedHosts: [String]
    /// HTTPS, and with which certificate.
    public var tls: TLS

    /// `[web] tls`: plain HTTP, a certificate made once and kept, or given files.
    public enum TLS: Sendable, Equatable {
        case off
        /// Made for the host name at the first start, kept in `directory` and reused.
        case selfSigned(directory: String)
        /// PEM files: the certificate (chain) and its unencrypted key.
        case files(certificate: String, key: String)
    }

    /// Where `tls = self-signed` keeps its certificate unless `state-directory` says otherwise.
    public static let defaultStateDirectory = "/var/lib/cast-gateway"

    public static let defaultPort: UInt16 = 8080
    public static let defaultListen = ListenAddress(host: "0.0.0.0", port: defaultPort)!

    public init(listen: ListenAddress = WebSettings.defaultListen, passwordFile: String,
                sessionIdleTimeout: Duration = .seconds(30 * 60), mdns: MDNS = .auto, allowedHosts: [String] = [],
                tls: TLS = .off) {
        self.listen = listen
        self.passwordFile = passwordFile
        self.sessionIdleTimeout = sessionIdleTimeout
        self.mdns = mdns
        self.allowedHosts = allowedHosts
        self.tls = tls
    }

    /// `http` or `https`.
    public var scheme: String { tls == .off ? "http" : "https" }

    /// `tv-214.hotel.lan 203.0.113.7`: names or numeric addresses separated by spaces (or commas),
    /// lowercased, without a trailing dot; nil when one is no host name.
    public static func parseAllowedHosts(_ text: String) -> [String]? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
        var names: [String] = []
        for part in parts {
            let part = String(part)
            if WebHostCheck.addressBytes(part) != nil {
                names.append(part.lowercased())
                continue
            }
            guard let name = WebHostCheck.normalized(part), !name.contains(":"), !name.hasPrefix("."), !name.hasPrefix("-"),
                  !name.contains("..") else { return nil }
            names.append(name)
        }
        return names.isEmpty ? nil : names
    }

    /// `192.168.1.5:8080`, `0.0.0.0:8080`, `[::]:8080`, `127.0.0.1:0` (any free port: tests). Numeric only.
    public static func parseListen(_ text: String) -> ListenAddress? {
        // HostPort takes no port 0; a free port is asked for with :0.
        let anyPort = text.hasSuffix(":0")
        let probe = anyPort ? String(text.dropLast()) + "1" : text
        guard let parsed = try? HostPort.parse(probe, defaultPort: defaultPort, allowsBareIPv6: false) else { return nil }
        return ListenAddress(host: parsed.host, port: anyPort ? 0 : parsed.port)
    }
}
