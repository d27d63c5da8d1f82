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
///
/// Bounded without loss, as `FileDescriptorReader` is: at most
/// `inboundLimit` chunks (each at most one 16 KiB read) wait for the consumer.
/// Then the connection stops calling SSL_read and suspends its read source
/// until the consumer has taken half of them, so the kernel's receive buffer
/// fills and TCP flow control stops the peer. A receiver that floods bytes
/// cannot grow the gateway's memory.
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
    private let fd: FileDescriptor
    private let ssl: OpaquePointer
    private let context: TLSContext
    private let queue: DispatchQueue
    private let inboundContinuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    /// Chunks that may wait for the consumer before reading stops.
    let inboundLimit: Int
    private let readSource: DispatchSourceRead
    private let writeSource: DispatchSourceWrite

    // Touched only on `queue` (each method that touches them asserts it):
    private var state = State.handshaking
    private var writeSourceResumed = false
    private var readSourceResumed = false
    private var sourcesAlive = 2
    private var pendingWrites: [(bytes: [UInt8], offset: Int, completion: (@Sendable ((any Error)?) -> Void)?)] = []
    private var handshakeCompletion: ((Result<Void, any Error>) -> Void)?
    private var readBuffer: [UInt8]
    /// Chunks (and their bytes) yielded and not yet taken by the consumer.
    private var waitingChunks = 0
    private var waitingBytes = 0
    private var peakWaitingBytes = 0
    /// Reading stopped because `inboundLimit` chunks wait.
    private var readingPaused = false

    /// The most one SSL_read delivers by default (one TLS record's plaintext).
    static let chunkSize = 16384

    init(fd: FileDescriptor, role: Role, context: TLSContext, peerDescription: String, inboundLimit: Int = 16,
         readSize: Int = TLSConnection.chunkSize) throws {
        guard let ssl = SSL_new(context.pointer) else {
            fd.close()
            throw TLSError(.setupFailed, "cannot create a TLS session: \(OpenSSLErrors.drain())")
        }
        SSL_set_fd(ssl, fd.rawValue)
        self.ssl = ssl
        self.fd = fd
        self.role = role
        self.context = context
        self.peerDescription = peerDescription
        self.queue = DispatchQueue(label: "cast-gateway.tls.\(peerDescription)")
        self.inboundLimit = max(1, inboundLimit)
        readBuffer = [UInt8](repeating: 0, count: max(1, readSize))
        // Unbounded as a stream; readAvailable() never puts more than `inboundLimit` chunks in it.
        let (chunks, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        inboundContinuation = continuation
        // One consumer, which asks for one chunk at a time; each one taken lets reading go on.
        let consumer = InboundConsumer(chunks.makeAsyncIterator())
        let shared = UncheckedSendable(consumer)
        inbound = AsyncThrowingStream(unfolding: { try await shared.value.next() })
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd.rawValue, queue: queue)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd.rawValue, queue: queue)

        let cancelHandler: @Sendable () -> Void = { [self] in
            dispatchPrecondition(condition: .onQueue(queue))
            sourcesAlive -= 1
            if sourcesAlive == 0 {
                SSL_free(self.ssl)
                self.fd.close()
            }
        }
        readSource.setEventHandler { [unowned self] in self.readable() }
        readSource.setCancelHandler(handler: cancelHandler)
        writeSource.setEventHandler { [unowned self] in self.writable() }
        writeSource.setCancelHandler(handler: cancelHandler)
        inboundContinuation.onTermination = { [weak self] _ in self?.close() }
        consumer.taken = { [weak self] count in self?.taken(count) }
        // A consumer cancelled before it asks again is dropped by the unfolding
        // stream without asking the inner one: the consumer going away closes too.
        consumer.gone = { [weak self] in self?.close() }
    }

    /// Inbound bytes waiting for the consumer now, and the most there ever were (tests).
    func inboundBuffered() async -> (bytes: Int, peak: Int, readingPaused: Bool) {
        await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: (waitingBytes, peakWaitingBytes, readingPaused)) }
        }
    }

    /// Whether a write waits for the kernel's send buffer (tests: the peer pushes back).
    func writeBlocked() async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: writeSourceResumed && !pendingWrites.isEmpty) }
        }
    }

    /// Connects to `host:port` and completes the TLS handshake, all within `timeout`.
    public static func connect(host: String, port: UInt16, context: TLSContext, timeout: Duration = .seconds(10)) async throws -> TLSConnection {
        try await connect(host: host, port: port, context: context, timeout: timeout, inboundLimit: 16, readSize: chunkSize)
    }

    /// `connect` with the inbound bound and read size chosen (tests).
    static func connect(host: String, port: UInt16, context: TLSContext, timeout: Duration = .seconds(10),
                        inboundLimit: Int, readSize: Int) async throws -> TLSConnection {
        let addresses = try await SocketAddress.resolve(host: host, port: port)
        let (fd, address) = try await TCPSocket.connect(to: addresses, timeout: timeout)
        let connection = try TLSConnection(fd: fd, role: .client, context: context, peerDescription: address.description,
                                           inboundLimit: inboundLimit, readSize: readSize)
        try await connection.handshake(timeout: timeout)
        return connection
    }

    /// Runs the handshake; on failure or timeout the connection is closed.
    func handshake(timeout: Duration) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { [self] in
                // Closed before the handshake began (a listener closing while
                // this task waited to run): the session is freed or about to be.
                guard state == .handshaking else {
                    return continuation.resume(throwing: TLSError(.closed, "connection to \(peerDescription) closed before its TLS handshake began"))
                }
                handshakeCompletion = { continuation.resume(with: $0) }
                resumeReadSource()
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

    // MARK: Event handling (on `queue`, asserted by dispatchPrecondition)

    private func readable() {
        dispatchPrecondition(condition: .onQueue(queue))
        switch state {
        case .handshaking: driveHandshake()
        case .open:
            readAvailable()
            if !pendingWrites.isEmpty { flushWrites() }
        case .closed: break
        }
    }

    private func writable() {
        dispatchPrecondition(condition: .onQueue(queue))
        switch state {
        case .handshaking: driveHandshake()
        case .open: flushWrites()
        case .closed: break
        }
        if state != .handshaking, pendingWrites.isEmpty { suspendWriteSource() }
    }

    private func driveHandshake() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard state == .handshaking else { return }  // after terminate the session may be freed
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

    /// Reads until OpenSSL wants more from the socket, or until `inboundLimit`
    /// chunks wait (then the read source is suspended; `taken` resumes it).
    private func readAvailable() {
        dispatchPrecondition(condition: .onQueue(queue))
        while state == .open, !readingPaused {
            let count = readBuffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                waitingChunks += 1
                waitingBytes += Int(count)
                peakWaitingBytes = max(peakWaitingBytes, waitingBytes)
                inboundContinuation.yield(Array(readBuffer[0..<Int(count)]))
                if waitingChunks >= inboundLimit {
                    // What OpenSSL already holds (SSL_pending) stays there; `taken` reads it first.
                    readingPaused = true
                    suspendReadSource()
                    return
                }
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

    /// The consumer took a chunk: once half the limit is free, read again.
    private func taken(_ count: Int) {
        queue.async { [self] in
            waitingChunks -= 1
            waitingBytes -= count
            guard readingPaused, state == .open, waitingChunks <= inboundLimit / 2 else { return }
            readingPaused = false
            resumeReadSource()
            // Decrypted or buffered records inside OpenSSL never make the socket
            // readable again: drain them now, and then wait on the descriptor.
            readAvailable()
            if !pendingWrites.isEmpty { flushWrites() }
        }
    }

    private func flushWrites() {
        dispatchPrecondition(condition: .onQueue(queue))
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
            case SSL_ERROR_WANT_READ: return  // the read source retries (after `taken` while reading is paused)
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
        dispatchPrecondition(condition: .onQueue(queue))
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
        resumeReadSource()  // never started, or paused by back-pressure
        readSource.cancel()
    }

    private func resumeReadSource() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !readSourceResumed else { return }
        readSourceResumed = true
        readSource.resume()
    }

    private func suspendReadSource() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard readSourceResumed, state != .closed else { return }
        readSourceResumed = false
        readSource.suspend()
    }

    private func resumeWriteSource() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !writeSourceResumed else { return }
        writeSourceResumed = true
        writeSource.resume()
    }

    private func suspendWriteSource() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard writeSourceResumed, state != .closed else { return }
        writeSourceResumed = false
        writeSource.suspend()
    }

    private func describeFailure(_ result: Int32) -> String {
        dispatchPrecondition(condition: .onQueue(queue))
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_SYSCALL {
            let systemErrno = errno
            return systemErrno == 0 ? "connection closed by peer" : SystemError.reason(systemErrno)
        }
        return OpenSSLErrors.drain()
    }
}

/// The consuming end of `inbound`: takes chunks one at a time and tells the
/// connection each time, so it knows when to read again.
private final class InboundConsumer {
    private var chunks: AsyncThrowingStream<[UInt8], any Error>.Iterator
    /// Set once in `TLSConnection.init`, before the stream is handed out.
    var taken: (@Sendable (Int) -> Void)?
    var gone: (@Sendable () -> Void)?

    init(_ chunks: AsyncThrowingStream<[UInt8], any Error>.Iterator) {
        self.chunks = chunks
    }

    deinit { gone?() }

    func next() async throws -> [UInt8]? {
        let chunk = try await chunks.next()
        if let chunk { taken?(chunk.count) }
        return chunk
    }
}
