#if canImport(Glibc)
import Glibc
#endif

/// The DNS-rebinding defence: the names a request's `Host` (and a POST's
/// `Origin`) may carry. A hostile page can point its own name at the box's
/// LAN address; the browser then talks to the web interface believing it
/// talks to that page's site, and sends that foreign name as `Host`. The box
/// answers only to its own names: its IP literals (the bound address, or any
/// address of its interfaces when bound to every address), its host name and
/// `HOST.local`, `localhost`, and the names of `[web] allowed-hosts`.
public struct WebHostCheck: Sendable {
    /// Lowercased, without a trailing dot.
    let names: Set<String>
    /// Addresses always accepted (the bound one, extra ones from the config), as raw bytes.
    let addresses: Set<[UInt8]>
    /// The interfaces' addresses now, asked only when bound to every address (DHCP may change them).
    let localAddresses: (@Sendable () -> [[UInt8]])?

    /// `listenHost`: the bound numeric address (`0.0.0.0` or `::`: any local address);
    /// `hostName`: the box's host name, if known; `extra`: `[web] allowed-hosts`.
    public init(listenHost: String, hostName: String?, extra: [String] = [],
                localAddresses: @escaping @Sendable () -> [[UInt8]] = WebHostCheck.interfaceAddresses) {
        var names: Set<String> = ["localhost"]
        if let hostName, let name = WebHostCheck.normalized(hostName) {
            names.insert(name)
            names.insert(name + ".local")
            // avahi publishes the first label.
            if let label = name.split(separator: ".").first { names.insert(label + ".local") }
        }
        var addresses: Set<[UInt8]> = []
        for name in extra {
            guard let name = WebHostCheck.normalized(name) else { continue }
            if let bytes = WebHostCheck.addressBytes(name) { addresses.insert(bytes) } else { names.insert(name) }
        }
        let bound = listenHost.split(separator: "%", maxSplits: 1).first.map(String.init) ?? listenHost
        if bound == "0.0.0.0" || bound == "::" {
            self.localAddresses = localAddresses
        } else {
            self.localAddresses = nil
            if let bytes = WebHostCheck.addressBytes(bound) { addresses.insert(bytes) }
        }
        self.names = names
        self.addresses = addresses
    }

    /// Whether a `Host` header names this box (port, case and a trailing dot do not matter).
    public func accepts(host header: String?) -> Bool {
        guard let header, let host = WebHostCheck.host(ofAuthority: header) else { return false }
        if let bytes = WebHostCheck.addressBytes(host) {
            return addresses.contains(bytes) || (localAddresses?().contains(bytes) ?? false)
        }
        // A bracketed literal that is no IPv6 address, or a bare one: no name of ours.
        guard !host.contains(":") else { return false }
        return names.contains(host)
    }

    /// Whether an `Origin` header is absent, opaque (`null`: what browsers send
    /// for a form posted under `Referrer-Policy: no-referrer`) or one of ours.
    public func accepts(origin header: String?) -> Bool {
        guard let header else { return true }
        let origin = header.lowercased()
        if origin == "null" { return true }
        for scheme in ["http://", "https://"] where origin.hasPrefix(scheme) {
            let authority = origin.dropFirst(scheme.count)
            guard !authority.contains("/") else { return false }
            return accepts(host: String(authority))
        }
        return false
    }

    /// A name as compared: lowercased, one trailing dot dropped; nil when empty or not a plausible name.
    static func normalized(_ text: String) -> String? {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= 253 else { return nil }
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E || byte == 0x3A
                || byte == 0x5F
        }
        return allowed ? name : nil
    }

    /// The host of `host[:port]` or `[v6][:port]`, normalized (an IPv6 literal without its brackets and zone); nil if malformed.
    static func host(ofAuthority authority: String) -> String? {
        let text = authority.trimmingSpaces()
        var host: Substring
        var rest: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            rest = text[text.index(after: close)...]
            // A zone id (%25eth0 in a URL) says which interface, not which host.
            if let percent = host.firstIndex(of: "%") { host = host[..<percent] }
            guard host.contains(":") else { return nil }
        } else {
            guard let colon = text.firstIndex(of: ":") else { return normalized(String(text)) }
            host = text[..<colon]
            rest = text[colon...]
            guard !host.isEmpty else { return nil }
        }
        if !rest.isEmpty {
            let port = rest.dropFirst()
            guard rest.first == ":", !port.isEmpty, port.count <= 5, port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return nil
            }
        }
        return normalized(String(host))
    }

    /// The bytes of an IPv4 (4) or IPv6 (16) literal; nil for anything else.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The addresses of this host's interfaces now (getifaddrs), as raw bytes.
    public static let interfaceAddresses: @Sendable () -> [[UInt8]] = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var result: [[UInt8]] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ifa_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        var bytes = pointer.pointee.sin_addr
                        result.append(withUnsafeBytes(of: &bytes) { Array($0) })
                    }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        var bytes = pointer.pointee.sin6_addr
                        result.append(withUnsafeBytes(of: &bytes) { Array($0) })
                    }
                default: break
                }
            }
            entry = current.pointee.ifa_next
        }
        return result
    }
}

private extension String {
    func trimmingSpaces() -> Substring {
        Substring(self).trimmingSpacesAndTabs()
    }
}
