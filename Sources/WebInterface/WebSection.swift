import Configuration
import SystemSupport

/// `[web]`: the browser interface. Without the section, or without
/// `password-file`, there is no web interface (`disabledReason` says why).
public struct WebSection: SettingsSection {
    public static let sectionName = "web"
    /// nil: no web interface.
    public var server: WebSettings?
    /// Why there is no web interface although `[web]` is present.
    public var disabledReason: String?

    public init(server: WebSettings? = nil) {
        self.server = server
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        let listen = try section.value("listen", expected: "a numeric ADDRESS:PORT such as 0.0.0.0:8080 or [::]:8080") {
            WebSettings.parseListen($0)
        }
        let passwordEntry = section.entry("password-file")
        let idle = try section.value("session-idle-minutes", expected: "whole minutes from 1 to 1440") { text -> Int? in
            guard let minutes = Int(text), (1...1440).contains(minutes) else { return nil }
            return minutes
        }
        let mdns = try section.value("mdns", expected: "auto, on or off", WebSettings.MDNS.init(rawValue:))
        let allowedHosts = try section.value("allowed-hosts",
                                             expected: "host names or numeric addresses separated by spaces, e.g. tv-214.hotel.lan 203.0.113.7",
                                             WebSettings.parseAllowedHosts)
        guard section.isPresent else { return }
        guard let passwordEntry, !passwordEntry.value.isEmpty else {
            disabledReason = "no password-file in [web]; create one with: cast-gateway web-password /etc/cast-gateway/web-password"
            return
        }
        guard passwordEntry.value.hasPrefix("/") else {
            throw section.error(passwordEntry, "must be an absolute path, e.g. /etc/cast-gateway/web-password")
        }
        server = WebSettings(listen: listen ?? WebSettings.defaultListen, passwordFile: passwordEntry.value,
                             sessionIdleTimeout: .seconds(60 * (idle ?? 30)), mdns: mdns ?? .auto, allowedHosts: allowedHosts ?? [])
    }
}
