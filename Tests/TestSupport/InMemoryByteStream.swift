import Synchronization
import SystemSupport

/// One end of an in-memory, ordered byte pipe: what one end enqueues, the
/// other receives. Closing either end finishes both.
public final class InMemoryByteStream: ByteStream, Sendable {
    public let inbound: AsyncThrowingStream<[UInt8], any Error>
    public let peerDescription: String
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    private let peer = Mutex<InMemoryByteStream?>(nil)
    private let closed = Mutex(false)
    /// Everything written by this end, in order (for assertions).
    public let written = Mutex<[[UInt8]]>([])

    init(name: String) {
        peerDescription = name
        (inbound, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
    }

    /// Two connected ends: (sender side, receiver side).
    public static func pair() -> (InMemoryByteStream, InMemoryByteStream) {
        let a = InMemoryByteStream(name: "memory-receiver")
        let b = InMemoryByteStream(name: "memory-sender")
        a.peer.withLock { $0 = b }
        b.peer.withLock { $0 = a }
        return (a, b)
    }

    public var isClosed: Bool { closed.withLock { $0 } }

    public func enqueue(_ bytes: [UInt8], completion: (@Sendable ((any Error)?) -> Void)?) {
        guard !isClosed, let peer = peer.withLock({ $0 }) else {
            completion?(SystemError("write to closed in-memory stream", errno: 32))
            return
        }
        written.withLock { $0.append(bytes) }
        peer.continuation.yield(bytes)
        completion?(nil)
    }

    /// Delivers raw bytes to this end, as if the peer had written them.
    public func inject(_ bytes: [UInt8]) {
        continuation.yield(bytes)
    }

    public func close() {
        let wasClosed = closed.withLock { value -> Bool in
            defer { value = true }
            return value
        }
        guard !wasClosed else { return }
        continuation.finish()
        if let peer = peer.withLock({ $0 }) { peer.close() }
    }
}
