#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SystemSupport

/// Non-blocking TCP sockets: connect with a timeout, listen, accept.
enum TCPSocket {
    /// Connects to the first address that answers; the socket is
    /// non-blocking with TCP_NODELAY (commands are small and latency-bound).
    static func connect(to addresses: [SocketAddress], timeout: Duration) async throws -> (fd: Int32, address: SocketAddress) {
        var lastError: any Error = TLSError(.connectFailed, "no address to connect to")
        for address in addresses {
            do {
                let fd = try await connect(to: address, timeout: timeout)
                return (fd, address)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    static func connect(to address: SocketAddress, timeout: Duration) async throws -> Int32 {
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TLSError(.connectFailed, SystemError.current("socket for \(address)").description) }
        configure(fd)
        let result = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        if result == 0 { return fd }
        guard errno == EINPROGRESS else {
            let error = SystemError.current("connect to \(address)")
            Glibc.close(fd)
            throw TLSError(.connectFailed, error.description)
        }
        try await waitUntilConnected(fd: fd, address: address, timeout: timeout)
        return fd
    }

    /// Waits for a non-blocking connect on a Dispatch write source, bounded by `timeout`.
    private static func waitUntilConnected(fd: Int32, address: SocketAddress, timeout: Duration) async throws {
        let queue = DispatchQueue(label: "cast-gateway.connect")
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            var finished = false
            var failed = false
            // On a failure the socket is closed by the cancel handler: closing it
            // before Dispatch has let go of it could hit a reused descriptor.
            source.setCancelHandler {
                if failed { Glibc.close(fd) }
            }
            // Runs on `queue` only, so `finished` and `failed` need no lock.
            let finish = UncheckedSendable { (error: (any Error)?) in
                guard !finished else { return }
                finished = true
                failed = error != nil
                source.cancel()
                if let error {
                    continuation.resume(throwing: error)
                } else {
                    continuation.resume()
                }
            }
            source.setEventHandler {
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                finish.value(code == 0 ? nil : TLSError(.connectFailed, SystemError("connect to \(address)", errno: code).description))
            }
            queue.asyncAfter(deadline: .now() + timeout.seconds) {
                finish.value(TLSError(.connectFailed, "connect to \(address) timed out after \(Int(timeout.seconds)) s"))
            }
            source.resume()
        }
    }

    static func configure(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A non-blocking listening socket on `host:port` (port 0 picks a free one).
    static func listen(host: String, port: UInt16) throws -> (fd: Int32, port: UInt16) {
        guard let address = try SocketAddress.resolveBlocking(host: host, port: port).first else {
            throw TLSError(.listenFailed, "no address for \(host)")
        }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TLSError(.listenFailed, SystemError.current("socket").description) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
            let error = SystemError.current("bind \(address)")
            Glibc.close(fd)
            throw TLSError(.listenFailed, "\(error) (is another receiver already on port \(port)?)")
        }
        guard Glibc.listen(fd, 64) == 0 else {
            let error = SystemError.current("listen on \(address)")
            Glibc.close(fd)
            throw TLSError(.listenFailed, error.description)
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let boundPort = SocketAddress(storage: bound, length: length).port
        return (fd, boundPort)
    }
}

extension SocketAddress {
    /// The port in host byte order.
    var port: UInt16 {
        var copy = storage
        return withUnsafePointer(to: &copy) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }
}
