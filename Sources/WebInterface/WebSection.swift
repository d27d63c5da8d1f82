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
        let tls = try WebSection.tls(&section)
        guard section.isPresent else { return }
        guard let passwordEntry, !passwordEntry.value.isEmpty else {
            disabledReason = "no password-file in [web]; create one with: cast-gateway web-password /etc/cast-gateway/web-password"
            return
        }
        guard passwordEntry.value.hasPrefix("/") else {
            throw section.error(passwordEntry, "must be an absolute path, e.g. /etc/cast-gateway/web-password")
        }
        server = WebSettings(listen: listen ?? WebSettings.defaultListen, passwordFile: passwordEntry.value,
                             sessionIdleTimeout: .seconds(60 * (idle ?? 30)), mdns: mdns ?? .auto, allowedHosts: allowedHosts ?? [], tls: tls)
    }

    /// `tls = off | self-signed | files`, with `certificate-file` and `key-file` for `files`
    /// and `state-directory` (where `self-signed` keeps its certificate).
    private static func tls(_ section: inout ConfigSection) throws(ConfigError) -> WebSettings.TLS {
        let mode = section.entry("tls")
        let certificate = section.entry("certificate-file")
        let key = section.entry("key-file")
        let state = section.entry("state-directory")
        for entry in [certificate, key, state].compactMap({ $0 }) where !entry.value.hasPrefix("/") {
            throw section.error(entry, "must be an absolute path, got '\(entry.value)'")
        }
        guard let mode, mode.value != "off" else {
            if let stray = certificate ?? key { throw section.error(stray, "is used only with tls = files") }
            return .off
        }
        switch mode.value {
        case "self-signed":
            if let stray = certificate ?? key { throw section.error(stray, "is used only with tls = files (self-signed makes its own)") }
            return .selfSigned(directory: state?.value ?? WebSettings.defaultStateDirectory)
        case "files":
            guard let certificate, let key else { throw section.error(mode, "files needs certificate-file and key-file (PEM) in [web]") }
            return .files(certificate: certificate.value, key: key.value)
        default:
            throw section.error(mode, "must be off, self-signed or files, got '\(mode.value)'")
        }
    }
}
