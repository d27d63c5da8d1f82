#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SystemSupport

/// Accepts TLS connections on a TCP port (the receiver simulator's server side).
/// Each accepted socket must complete its handshake within `handshakeTimeout`
/// before it is delivered on `connections`. `close()` also ends the
/// handshakes under way: no accepted socket outlives the listener undelivered.
public final class TLSListener: @unchecked Sendable {
    /// The bound port (useful when 0 was asked for).
    public let port: UInt16
    public let connections: AsyncStream<TLSConnection>

    private let fd: FileDescriptor
    private let context: TLSContext
    private let source: DispatchSourceRead
    private let queue = DispatchQueue(label: "cast-gateway.listener")
    // On `queue` only: sockets accepted and still in their handshake, by number.
    private var handshaking: [Int: TLSConnection] = [:]
    private var accepted = 0
    private var closed = false
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
        source = DispatchSource.makeReadSource(fileDescriptor: fd.rawValue, queue: queue)
        source.setEventHandler { [unowned self] in self.acceptPending() }
        source.setCancelHandler { fd.close() }
        source.resume()
    }

    /// Stops accepting; connections already delivered stay open.
    public func close() {
        continuation.finish()
        source.cancel()
        queue.async { [self] in
            guard !closed else { return }
            closed = true
            // Their handshake tasks then fail at once and end, instead of
            // holding the socket until the handshake timeout.
            for connection in handshaking.values { connection.close() }
            handshaking.removeAll()
        }
    }

    /// Sockets accepted and still in their handshake (tests).
    var handshakesUnderway: Int {
        get async {
            await withCheckedContinuation { continuation in
                queue.async { [self] in continuation.resume(returning: handshaking.count) }
            }
        }
    }

    private func acceptPending() {
        dispatchPrecondition(condition: .onQueue(queue))
        while !closed {
            let client: FileDescriptor, address: sockaddr_storage, length: socklen_t
            do {
                guard let accepted = try fd.accept(operation: "accept on port \(port)") else { return }
                (client, address, length) = accepted
            } catch {
                logger.warning(error.description)
                return
            }
            TCPSocket.configure(client)
            let peer = SocketAddress(storage: address, length: length).description
            do {
                let connection = try TLSConnection(fd: client, role: .server, context: context, peerDescription: peer)
                accepted += 1
                let number = accepted
                handshaking[number] = connection
                let timeout = handshakeTimeout
                let continuation = self.continuation
                let logger = self.logger
                // One handshake per accepted socket, bounded by its timeout. The
                // listener owns it through `handshaking`: close() closes the
                // connection, which ends the handshake and so this task.
                Task { [weak self] in
                    do {
                        try await connection.handshake(timeout: timeout)
                    } catch {
                        logger.info("dropped \(peer): \(error)")
                        self?.handshakeEnded(number, delivering: nil, to: continuation)
                        return
                    }
                    if let self {
                        self.handshakeEnded(number, delivering: connection, to: continuation)
                    } else {
                        connection.close()  // the listener is gone: nobody takes it
                    }
                }
            } catch {
                logger.warning("cannot set up TLS for \(peer): \(error)")
            }
        }
    }

    /// Ends a handshake on the listener's queue, where close() runs too: a
    /// connection is either delivered (and close() leaves it alone) or closed
    /// by close(), never both.
    private func handshakeEnded(_ number: Int, delivering connection: TLSConnection?,
                                to continuation: AsyncStream<TLSConnection>.Continuation) {
        queue.async { [self] in
            handshaking[number] = nil
            guard let connection else { return }
            // After close() nobody takes it: close it rather than leak its socket.
            if closed { return connection.close() }
            if case .terminated = continuation.yield(connection) { connection.close() }
        }
    }
}
