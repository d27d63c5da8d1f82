import Synchronization
import SystemSupport

/// Wraps a transport and records when each write is fully handed to the kernel.
final class MeasuringStream: ByteStream, Sendable {
    private let base: any ByteStream
    /// Completion instants of every write, in order.
    let completions = Mutex<[ContinuousClock.Instant]>([])

    init(_ base: any ByteStream) { self.base = base }

    var inbound: AsyncThrowingStream<[UInt8], any Error> { base.inbound }
    var peerDescription: String { base.peerDescription }
    func close() { base.close() }

    func enqueue(_ bytes: [UInt8], completion: (@Sendable ((any Error)?) -> Void)?) {
        base.enqueue(bytes) { [self] error in
            let now = ContinuousClock.now
            if error == nil { self.completions.withLock { $0.append(now) } }
            completion?(error)
        }
    }

    /// The first write completed at or after `instant`.
    func firstCompletion(after instant: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        completions.withLock { $0.first { $0 >= instant } }
    }
}

/// The stream of the current connection, set by the connector.
final class CurrentStream: Sendable {
    private let slot = Mutex<MeasuringStream?>(nil)
    var value: MeasuringStream? {
        get { slot.withLock { $0 } }
        set { slot.withLock { $0 = newValue } }
    }
}
