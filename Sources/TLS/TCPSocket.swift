#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SystemSupport

/// Non-blocking TCP sockets: connect with a timeout, listen, accept.
enum TCPSocket {
    /// Connects to the first address that answers; the socket is
    /// non-blocking with TCP_NODELAY (commands are small and latency-bound).
    static func connect(to addresses: [SocketAddress], timeout: Duration) async throws -> (fd: FileDescriptor, address: SocketAddress) {
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

    static func connect(to address: SocketAddress, timeout: Duration) async throws -> FileDescriptor {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.socket(family: address.family, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true,
                                           operation: "socket for \(address)")
        } catch {
            throw TLSError(.connectFailed, error.description)
        }
        configure(fd)
        let result = address.withSockaddr { Glibc.connect(fd.rawValue, $0, $1) }
        if result == 0 { return fd }
        let error = SystemError.current("connect to \(address)")
        guard error.errno == EINPROGRESS else {
            fd.close()
            throw TLSError(.connectFailed, error.description)
        }
        try await waitUntilConnected(fd: fd, address: address, timeout: timeout)
        return fd
    }

    /// Waits for a non-blocking connect on a Dispatch write source, bounded by `timeout`.
    private static func waitUntilConnected(fd: FileDescriptor, address: SocketAddress, timeout: Duration) async throws {
        let queue = DispatchQueue(label: "cast-gateway.connect")
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd.rawValue, queue: queue)
            var finished = false
            var failure: (any Error)?
            // The caller gets the socket (or its failure) only once Dispatch has
            // let go of it: a connection that closes it at once, or the close of
            // a failed one, must never meet this source on a reused descriptor.
            source.setCancelHandler {
                if let failure {
                    fd.close()
                    continuation.resume(throwing: failure)
                } else {
                    continuation.resume()
                }
            }
            // Runs on `queue` only (the cancel handler too), so `finished` and `failure` need no lock.
            let finish = UncheckedSendable { (error: (any Error)?) in
                guard !finished else { return }
                finished = true
                failure = error
                source.cancel()
            }
            source.setEventHandler {
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd.rawValue, SOL_SOCKET, SO_ERROR, &code, &length)
                finish.value(code == 0 ? nil : TLSError(.connectFailed, SystemError("connect to \(address)", errno: code).description))
            }
            queue.asyncAfter(deadline: .now() + timeout.seconds) {
                finish.value(TLSError(.connectFailed, "connect to \(address) timed out after \(Int(timeout.seconds)) s"))
            }
            source.resume()
        }
    }

    static func configure(_ fd: FileDescriptor) {
        var one: Int32 = 1
        setsockopt(fd.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd.rawValue, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A non-blocking listening socket on `host:port` (port 0 picks a free one).
    static func listen(host: String, port: UInt16) throws -> (fd: FileDescriptor, port: UInt16) {
        guard let address = try SocketAddress.resolveBlocking(host: host, port: port).first else {
            throw TLSError(.listenFailed, "no address for \(host)")
        }
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.socket(family: address.family, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true)
        } catch {
            throw TLSError(.listenFailed, error.description)
        }
        var one: Int32 = 1
        setsockopt(fd.rawValue, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard address.withSockaddr({ bind(fd.rawValue, $0, $1) }) == 0 else {
            let error = SystemError.current("bind \(address)")
            fd.close()
            throw TLSError(.listenFailed, "\(error) (is another receiver already on port \(port)?)")
        }
        guard Glibc.listen(fd.rawValue, 64) == 0 else {
            let error = SystemError.current("listen on \(address)")
            fd.close()
            throw TLSError(.listenFailed, error.description)
        }
        var bound = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd.rawValue, $0, &length) }
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
