#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// A numeric IPv4 or IPv6 address and a port to listen on or to route
/// toward. Numeric only: no DNS lookup ever happens here.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// Numeric host, e.g. `192.168.1.20` or `fe80::1%eth0`.
    public let host: String
    public let port: UInt16
    let storage: UncheckedStorage

    struct UncheckedStorage: @unchecked Sendable, Equatable {
        var bytes: [UInt8]
        var family: Int32
    }

    /// Parses a numeric address (brackets around IPv6 allowed); nil otherwise.
    public init?(host: String, port: UInt16) {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard !bare.isEmpty, bare.utf8.count < 64, !bare.utf8.contains(0) else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(bare, String(port), &hints, &list) == 0, let entry = list else { return nil }
        defer { freeaddrinfo(list) }
        let raw = UnsafeRawBufferPointer(start: entry.pointee.ai_addr, count: Int(entry.pointee.ai_addrlen))
        self.host = bare
        self.port = port
        storage = UncheckedStorage(bytes: Array(raw), family: entry.pointee.ai_family)
    }

    public var isIPv6: Bool { storage.family == AF_INET6 }

    /// The host as it goes in a URL: IPv6 in brackets, zone id escaped.
    public var urlHost: String {
        guard isIPv6 else { return host }
        return "[" + host.replacingPercent() + "]"
    }

    public var description: String { "\(urlHost):\(port)" }

    /// The same address with another port.
    public func with(port: UInt16) -> ListenAddress {
        ListenAddress(host: host, port: port) ?? self
    }

    public func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        storage.bytes.withUnsafeBytes { raw in
            // sockaddr_storage alignment: copy into one before handing it to C.
            var aligned = sockaddr_storage()
            withUnsafeMutableBytes(of: &aligned) { $0.copyMemory(from: raw) }
            return withUnsafePointer(to: &aligned) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(raw.count)) }
            }
        }
    }

    /// The numeric host of an IPv4 or IPv6 socket address, or nil.
    static func host(of address: UnsafePointer<sockaddr>) -> String? {
        let length: Int
        switch Int32(address.pointee.sa_family) {
        case AF_INET: length = MemoryLayout<sockaddr_in>.size
        case AF_INET6: length = MemoryLayout<sockaddr_in6>.size
        default: return nil
        }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, socklen_t(length), &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(nullTerminated: host)
    }

    /// The address a socket is bound to (getsockname), or nil.
    public static func local(of fd: Int32) -> ListenAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let named = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                            NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard named == 0, let port = UInt16(String(nullTerminated: service)) else { return nil }
        return ListenAddress(host: String(nullTerminated: host), port: port)
    }
}

extension String {
    /// `%` as `%25` (an IPv6 zone id inside a URL, RFC 6874).
    fileprivate func replacingPercent() -> String {
        split(separator: "%", omittingEmptySubsequences: false).joined(separator: "%25")
    }
}
