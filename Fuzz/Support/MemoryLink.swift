import Synchronization
import SystemSupport

/// An in-memory link to the client: its end is a ByteStream, the harness
/// holds the other side as a continuation and a stream. Unlike
/// TestSupport's InMemoryByteStream.pair() (whose two ends keep each other
/// alive, so every pair leaks and LeakSanitizer reports it on every input),
/// nothing here refers back, so real leaks in the client stay visible.
final class MemoryLink: Sendable {
    /// The client's end, given to the CastClient connector.
    let clientEnd: ClientEnd
    /// What the client writes, in order; finishes when either side closes.
    let fromClient: AsyncStream<[UInt8]>

    init() {
        let (fromClient, written) = AsyncStream.makeStream(of: [UInt8].self)
        self.fromClient = fromClient
        clientEnd = ClientEnd(written: written)
    }

    /// Delivers bytes to the client, as if the receiver had sent them.
    func send(_ bytes: [UInt8]) { clientEnd.deliver(bytes) }

    /// Closes the link from the receiver's side.
    func close() { clientEnd.close() }

    final class ClientEnd: ByteStream, Sendable {
        let inbound: AsyncThrowingStream<[UInt8], any Error>
        let peerDescription = "fuzz-receiver:8009"
        private let toClient: AsyncThrowingStream<[UInt8], any Error>.Continuation
        private let written: AsyncStream<[UInt8]>.Continuation
        private let closed = Mutex(false)

        init(written: AsyncStream<[UInt8]>.Continuation) {
            self.written = written
            (inbound, toClient) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        }

        func enqueue(_ bytes: [UInt8], completion: (@Sendable ((any Error)?) -> Void)?) {
            guard !closed.withLock({ $0 }) else {
                completion?(SystemError("write to a closed fuzz link", errno: 32))
                return
            }
            written.yield(bytes)
            completion?(nil)
        }

        func deliver(_ bytes: [UInt8]) {
            guard !closed.withLock({ $0 }) else { return }
            toClient.yield(bytes)
        }

        func close() {
            let wasClosed = closed.withLock { value -> Bool in
                defer { value = true }
                return value
            }
            guard !wasClosed else { return }
            toClient.finish()
            written.finish()
        }
    }
}
