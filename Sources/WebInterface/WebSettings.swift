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

    public static let defaultPort: UInt16 = 8080
    public static let defaultListen = ListenAddress(host: "0.0.0.0", port: defaultPort)!

    public init(listen: ListenAddress = WebSettings.defaultListen, passwordFile: String,
                sessionIdleTimeout: Duration = .seconds(30 * 60), mdns: MDNS = .auto) {
        self.listen = listen
        self.passwordFile = passwordFile
        self.sessionIdleTimeout = sessionIdleTimeout
        self.mdns = mdns
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
