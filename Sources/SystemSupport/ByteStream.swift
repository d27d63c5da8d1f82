/// A bidirectional, ordered byte stream: the seam between protocol code and
/// the transport. The daemon uses TLS over TCP; tests use an in-memory pair.
public protocol ByteStream: AnyObject, Sendable {
    /// Bytes as they arrive. Finishes when the peer closes, throws on a
    /// transport error. Ending iteration early closes the stream.
    var inbound: AsyncThrowingStream<[UInt8], any Error> { get }

    /// Queues `bytes` for writing, in call order. `completion` runs once the
    /// bytes are fully handed to the kernel, or with the error that stopped them.
    func enqueue(_ bytes: [UInt8], completion: (@Sendable ((any Error)?) -> Void)?)

    /// Closes the stream; pending writes fail and `inbound` finishes.
    func close()

    /// The peer for log messages, e.g. `192.168.1.20:8009`.
    var peerDescription: String { get }

    /// The DER certificate the peer presented (TLS only; nil otherwise).
    /// Device authentication binds its answer to it.
    var peerCertificate: [UInt8]? { get }
}

extension ByteStream {
    public var peerCertificate: [UInt8]? { nil }

    /// Writes `bytes` and waits until they are handed to the kernel.
    public func write(_ bytes: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enqueue(bytes) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }
}
