#if canImport(Glibc)
import Glibc
#endif
import Configuration
import SystemSupport

/// `[device]`: which Cast device the gateway controls (exactly one of
/// `host`, `name` and `id`; none means "not configured yet").
public struct DeviceSettings: SettingsSection {
    public enum Target: Sendable, Equatable {
        case address(host: String, port: UInt16)
        /// Friendly name, resolved by mDNS discovery.
        case name(String)
        /// Device id (uuid without dashes), resolved by mDNS discovery.
        case id(String)
    }

    public static let sectionName = "device"
    public var target: Target?

    public init(target: Target? = nil) {
        self.target = target
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        let host = section.entry("host"), name = section.entry("name"), id = section.entry("id")
        let given = [host, name, id].compactMap { $0 }.sorted { $0.line < $1.line }
        if given.count > 1 {
            throw section.error(given[1], "only one of host, name and id may be set (\(given[0].key) is set on line \(given[0].line))")
        }
        if let host {
            guard !host.value.isEmpty else { throw section.error(host, "must not be empty") }
            guard let parsed = DeviceSettings.parseHostPort(host.value) else {
                throw section.error(host, "must be HOST or HOST:PORT (IPv6 as [ADDRESS]:PORT), port 1-65535; got '\(host.value)'")
            }
            target = .address(host: parsed.host, port: parsed.port)
        } else if let name {
            guard !name.value.isEmpty else { throw section.error(name, "must not be empty") }
            target = .name(name.value)
        } else if let id {
            let normalized = id.value.lowercased().filter { $0 != "-" }
            guard normalized.count == 32, normalized.allSatisfy(\.isHexDigit) else {
                throw section.error(id, "must be the device's 32-hex-digit id (as in mDNS 'id='), got '\(id.value)'")
            }
            target = .id(normalized)
        }
    }

    /// Parses `HOST`, `HOST:PORT`, `[IPV6]` or `[IPV6]:PORT` (default port 8009).
    public static func parseHostPort(_ text: String) -> (host: String, port: UInt16)? {
        guard let parsed = try? HostPort.parse(text, defaultPort: 8009), isValidHost(parsed.host) else { return nil }
        return (parsed.host, parsed.port)
    }

    /// An IPv4 or IPv6 literal (IPv6 may carry a `%zone`), or a DNS host name
    /// (letters, digits and hyphens in dot-separated labels of 1 to 63).
    public static func isValidHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253, host.allSatisfy(\.isASCII) else { return false }
        if host.contains(":") {
            let address = host.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            if address.count == 2,
               address[1].isEmpty || !address[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" }) {
                return false
            }
            var storage = in6_addr()
            return inet_pton(AF_INET6, String(address[0]), &storage) == 1
        }
        if host.allSatisfy({ $0.isNumber || $0 == "." }) {
            var storage = in_addr()
            return inet_pton(AF_INET, host, &storage) == 1
        }
        let labels = (host.hasSuffix(".") ? String(host.dropLast()) : host).split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
        }
    }
}
