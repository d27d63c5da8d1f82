#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SystemSupport

/// Accepts TLS connections on a TCP port (the receiver simulator's server side).
/// Each accepted socket must complete its handshake within `handshakeTimeout`
/// before it is delivered on `connections`.
public final class TLSListener: @unchecked Sendable {
    /// The bound port (useful when 0 was asked for).
    public let port: UInt16
    public let connections: AsyncStream<TLSConnection>

    private let fd: Int32
    private let context: TLSContext
    private let source: DispatchSourceRead
    private let continuation: AsyncStream<TLSConnection>.Continuation
    private let handshakeTimeout: Duration
    private let logger = Logger(label: "tls-listener")

    /// Listens on `host:port`; `host` defaults to loopback only.
    public init(host: String = "127.0.0.1", port: UInt16, context: TLSContext, handshakeTimeout: Duration = .seconds(10)) throws {
        let (fd, boundPort) = try TCPSocket.listen(host: host, port: port)
        self.fd = fd
        self.port = boundPort
        self.context = context
        self.handshakeTimeout = handshakeTimeout
        (connections, continuation) = AsyncStream.makeStream(of: TLSConnection.self)
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "cast-gateway.listener"))
        source.setEventHandler { [unowned self] in self.acceptPending() }
        source.setCancelHandler { Glibc.close(fd) }
        source.resume()
    }

    /// Stops accepting; connections already delivered stay open.
    public func close() {
        source.cancel()
        continuation.finish()
    }

    private func acceptPending() {
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept(fd, $0, &length)
                }
            }
            if client < 0 {
                if errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                    logger.warning(SystemError.current("accept on port \(port)").description)
                }
                return
            }
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            TCPSocket.configure(client)
            let peer = SocketAddress(storage: address, length: length).description
            do {
                let connection = try TLSConnection(fd: client, role: .server, context: context, peerDescription: peer)
                let timeout = handshakeTimeout
                let continuation = self.continuation
                let logger = self.logger
                // One handshake per accepted socket, bounded by its timeout; the listener owns no more than that.
                Task {
                    do {
                        try await connection.handshake(timeout: timeout)
                        // After close() nobody takes it: close it rather than leak its socket.
                        if case .terminated = continuation.yield(connection) { connection.close() }
                    } catch {
                        logger.info("dropped \(peer): \(error)")
                    }
                }
            } catch {
                logger.warning("cannot set up TLS for \(peer): \(error)")
            }
        }
    }
}
