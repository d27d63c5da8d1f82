#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import Dispatch
import SystemSupport

/// A TLS connection over a non-blocking socket.
///
/// Every OpenSSL call for the connection runs on its own serial Dispatch
/// queue, driven by a read source and (only while a write is blocked) a write
/// source, so nothing ever blocks the Swift cooperative thread pool and an idle
/// connection costs no CPU. Received bytes are delivered through `inbound`.
public final class TLSConnection: ByteStream, @unchecked Sendable {
    public enum Role: Sendable { case client, server }

    private enum State { case handshaking, open, closed }

    public let inbound: AsyncThrowingStream<[UInt8], any Error>
    public let peerDescription: String
    /// SHA-256 fingerprint of the peer's certificate, set once the handshake completes.
    public private(set) var peerCertificateFingerprint: String?
    /// The peer's certificate (DER), set once the handshake completes.
    public private(set) var peerCertificate: [UInt8]?

    private let role: Role
    private let fd: Int32
    private let ssl: OpaquePointer
    private let context: TLSContext
    private let queue: DispatchQueue
    private let inboundContinuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let readSource: DispatchSourceRead
    private let writeSource: DispatchSourceWrite

    // Touched only on `queue`:
    private var state = State.handshaking
    private var writeSourceResumed = false
    private var readSourceResumed = false
    private var sourcesAlive = 2
    private var pendingWrites: [(bytes: [UInt8], offset: Int, completion: (@Sendable ((any Error)?) -> Void)?)] = []
    private var handshakeCompletion: ((Result<Void, any Error>) -> Void)?
    private var readBuffer = [UInt8](repeating: 0, count: 16384)

    init(fd: Int32, role: Role, context: TLSContext, peerDescription: String) throws {
        guard let ssl = SSL_new(context.pointer) else {
            Glibc.close(fd)
            throw TLSError(.setupFailed, "cannot create a TLS session: \(OpenSSLErrors.drain())")
        }
        SSL_set_fd(ssl, fd)
        self.ssl = ssl
        self.fd = fd
        self.role = role
        self.context = context
        self.peerDescription = peerDescription
        self.queue = DispatchQueue(label: "cast-gateway.tls.\(peerDescription)")
        (inbound, inboundContinuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)

        let cancelHandler: @Sendable () -> Void = { [self] in
            sourcesAlive -= 1
            if sourcesAlive == 0 {
                SSL_free(self.ssl)
                Glibc.close(self.fd)
            }
        }
        readSource.setEventHandler { [unowned self] in self.readable() }
        readSource.setCancelHandler(handler: cancelHandler)
        writeSource.setEventHandler { [unowned self] in self.writable() }
        writeSource.setCancelHandler(handler: cancelHandler)
        inboundContinuation.onTermination = { [weak self] _ in self?.close() }
    }

    /// Connects to `host:port` and completes the TLS handshake, all within `timeout`.
    public static func connect(host: String, port: UInt16, context: TLSContext, timeout: Duration = .seconds(10)) async throws -> TLSConnection {
        let addresses = try await SocketAddress.resolve(host: host, port: port)
        let (fd, address) = try await TCPSocket.connect(to: addresses, timeout: timeout)
        let connection = try TLSConnection(fd: fd, role: .client, context: context, peerDescription: address.description)
        try await connection.handshake(timeout: timeout)
        return connection
    }

    /// Runs the handshake; on failure or timeout the connection is closed.
    func handshake(timeout: Duration) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                handshakeCompletion = { continuation.resume(with: $0) }
                readSourceResumed = true
                readSource.resume()
                driveHandshake()
            }
            queue.asyncAfter(deadline: .now() + timeout.seconds) { [self] in
                if state == .handshaking {
                    terminate(TLSError(.handshakeFailed, "TLS handshake with \(peerDescription) timed out after \(Int(timeout.seconds)) s"))
                }
            }
        }
    }

    public func enqueue(_ bytes: [UInt8], completion: (@Sendable ((any Error)?) -> Void)?) {
        queue.async { [self] in
            guard state == .open else {
                completion?(TLSError(.closed, "connection to \(peerDescription) is closed"))
                return
            }
            pendingWrites.append((bytes, 0, completion))
            flushWrites()
        }
    }

    public func close() {
        queue.async { [self] in terminate(nil) }
    }

    // MARK: Event handling (on `queue`)

    private func readable() {
        switch state {
        case .handshaking: driveHandshake()
        case .open:
            readAvailable()
            if !pendingWrites.isEmpty { flushWrites() }
        case .closed: break
        }
    }

    private func writable() {
        switch state {
        case .handshaking: driveHandshake()
        case .open: flushWrites()
        case .closed: break
        }
        if state != .handshaking, pendingWrites.isEmpty { suspendWriteSource() }
    }

    private func driveHandshake() {
        let result = role == .client ? SSL_connect(ssl) : SSL_accept(ssl)
        let systemErrno = errno
        if result == 1 {
            state = .open
            suspendWriteSource()
            if let certificate = SSL_get1_peer_certificate(ssl) {
                peerCertificateFingerprint = SelfSignedCertificate.fingerprint(of: certificate)
                peerCertificate = SelfSignedCertificate.der(of: certificate)
                X509_free(certificate)
            }
            let completion = handshakeCompletion
            handshakeCompletion = nil
            completion?(.success(()))
            readAvailable()
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: suspendWriteSource()
        case SSL_ERROR_WANT_WRITE: resumeWriteSource()
        case let code:
            let queuedError = ERR_peek_error()
            terminate(TLSError(.handshakeFailed, HandshakeFailure.describe(
                peer: peerDescription, sslError: code, systemErrno: systemErrno, queuedError: queuedError,
                queuedText: OpenSSLErrors.drain())))
        }
    }

    private func readAvailable() {
        while state == .open {
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                inboundContinuation.yield(Array(readBuffer[0..<Int(count)]))
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ: return
            case SSL_ERROR_WANT_WRITE: resumeWriteSource(); return
            case SSL_ERROR_ZERO_RETURN: terminate(nil); return
            default:
                terminate(TLSError(.ioFailed, "reading from \(peerDescription) failed: \(describeFailure(count))"))
                return
            }
        }
    }

    private func flushWrites() {
        while state == .open, !pendingWrites.isEmpty {
            let remaining = pendingWrites[0].bytes.count - pendingWrites[0].offset
            let offset = pendingWrites[0].offset
            let written = pendingWrites[0].bytes.withUnsafeBytes { buffer in
                SSL_write(ssl, buffer.baseAddress! + offset, Int32(remaining))
            }
            if written > 0 {
                pendingWrites[0].offset += Int(written)
                if pendingWrites[0].offset == pendingWrites[0].bytes.count {
                    let finished = pendingWrites.removeFirst()
                    finished.completion?(nil)
                }
                continue
            }
            switch SSL_get_error(ssl, written) {
            case SSL_ERROR_WANT_WRITE: resumeWriteSource(); return
            case SSL_ERROR_WANT_READ: return  // the read source retries
            default:
                terminate(TLSError(.ioFailed, "writing to \(peerDescription) failed: \(describeFailure(written))"))
                return
            }
        }
        if pendingWrites.isEmpty { suspendWriteSource() }
    }

    /// Closes once: sends close_notify (best effort), fails what is pending,
    /// finishes `inbound` and cancels both sources (which then free the session and fd).
    private func terminate(_ error: (any Error)?) {
        guard state != .closed else { return }
        let wasOpen = state == .open
        state = .closed
        if wasOpen { SSL_shutdown(ssl) }
        _ = OpenSSLErrors.drain()
        let closedError = error ?? TLSError(.closed, "connection to \(peerDescription) closed")
        for pending in pendingWrites { pending.completion?(closedError) }
        pendingWrites.removeAll()
        if let completion = handshakeCompletion {
            handshakeCompletion = nil
            completion(.failure(closedError))
        }
        if let error { inboundContinuation.finish(throwing: error) } else { inboundContinuation.finish() }
        resumeWriteSource()  // a suspended source must be resumed before it can be cancelled
        writeSource.cancel()
        if !readSourceResumed {
            readSourceResumed = true
            readSource.resume()
        }
        readSource.cancel()
    }

    private func resumeWriteSource() {
        guard !writeSourceResumed else { return }
        writeSourceResumed = true
        writeSource.resume()
    }

    private func suspendWriteSource() {
        guard writeSourceResumed, state != .closed else { return }
        writeSourceResumed = false
        writeSource.suspend()
    }

    private func describeFailure(_ result: Int32) -> String {
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_SYSCALL {
            let systemErrno = errno
            return systemErrno == 0 ? "connection closed by peer" : String(cString: strerror(systemErrno))
        }
        return OpenSSLErrors.drain()
    }
}
