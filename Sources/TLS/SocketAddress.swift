#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SystemSupport

/// An IPv4 or IPv6 socket address, resolved or parsed.
public struct SocketAddress: Sendable, CustomStringConvertible {
    var storage: sockaddr_storage
    var length: socklen_t

    public var family: Int32 { Int32(storage.ss_family) }

    /// `1.2.3.4:8009` or `[fe80::1]:8009`.
    public var description: String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        var copy = storage
        let result = withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                            NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard result == 0 else { return "<unknown address>" }
        let hostText = String(nullTerminated: host)
        let serviceText = String(nullTerminated: service)
        return family == AF_INET6 ? "[\(hostText)]:\(serviceText)" : "\(hostText):\(serviceText)"
    }

    /// Resolves `host` (a name or a numeric address) for TCP. `getaddrinfo`
    /// may block on DNS, so it runs on a Dispatch queue, never on the
    /// cooperative thread pool.
    public static func resolve(host: String, port: UInt16) async throws -> [SocketAddress] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try resolveBlocking(host: host, port: port) })
            }
        }
    }

    static func resolveBlocking(host: String, port: UInt16) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let trimmed = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let status = getaddrinfo(trimmed, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw TLSError(.resolveFailed, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            var storage = sockaddr_storage()
            let length = entry.pointee.ai_addrlen
            withUnsafeMutableBytes(of: &storage) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(start: entry.pointee.ai_addr, count: Int(length)))
            }
            addresses.append(SocketAddress(storage: storage, length: length))
            cursor = entry.pointee.ai_next
        }
        return addresses
    }

    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}
