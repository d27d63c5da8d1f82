import Dispatch

/// What a readable file descriptor delivers.
public enum ReadEvent: Sendable, Equatable {
    case bytes([UInt8])
    /// The descriptor reached end of file or failed; the text says which.
    case ended(String)
}

/// Reads a file descriptor through a Dispatch read source into an
/// `AsyncStream`, so an idle reader costs no CPU. Each readiness event reads
/// while `poll` says more is there, so an end of file that arrives together
/// with the last data is not missed, and a blocking descriptor (standard
/// input on a terminal) never blocks. With `owned`, the stream owns the
/// descriptor: it is closed by the source's cancel handler, when the stream
/// ends or its consumer goes away, and never before Dispatch lets go of it.
///
/// Bounded without loss: at most `limit` chunks wait for the consumer. Then
/// the reader stops reading until the consumer has taken half of them, and the
/// writer waits on the kernel's buffer (a flooding lircd, a fast pipe). Dropping
/// chunks instead would glue the start of one line to the end of another.
public enum FileDescriptorReader {
    public static func events(fd: FileDescriptor, queue: DispatchQueue, chunkSize: Int = 4096, owned: Bool = true,
                              limit: Int = 64) -> AsyncStream<ReadEvent> {
        // Unbounded as a stream; the reader never puts more than `limit` chunks in it.
        let (chunks, continuation) = AsyncStream.makeStream(of: ReadEvent.self)
        let reader = Reader(fd: fd, queue: queue, chunkSize: chunkSize, limit: max(1, limit), owned: owned,
                            continuation: continuation)
        continuation.onTermination = { _ in reader.cancel() }
        reader.start()
        // One consumer, which asks for one chunk at a time; each one taken lets the reader go on.
        let consumer = UncheckedSendable(Consumer(chunks.makeAsyncIterator(), reader: reader))
        return AsyncStream(unfolding: { await consumer.value.next() }, onCancel: { reader.cancel() })
    }

    /// The consuming end: takes chunks and tells the reader each time.
    private final class Consumer {
        private var chunks: AsyncStream<ReadEvent>.Iterator
        private let reader: Reader

        init(_ chunks: AsyncStream<ReadEvent>.Iterator, reader: Reader) {
            self.chunks = chunks
            self.reader = reader
        }

        func next() async -> ReadEvent? {
            let event = await chunks.next()
            if case .bytes = event { reader.taken() }
            return event
        }
    }

    /// The reading end: a read source, paused while `limit` chunks wait.
    private final class Reader: @unchecked Sendable {
        private let fd: FileDescriptor
        private let queue: DispatchQueue
        private let limit: Int
        private let owned: Bool
        private let continuation: AsyncStream<ReadEvent>.Continuation
        // On `queue` only:
        private let source: DispatchSourceRead
        private var buffer: [UInt8]
        private var waiting = 0
        private var paused = false
        private var finished = false

        init(fd: FileDescriptor, queue: DispatchQueue, chunkSize: Int, limit: Int, owned: Bool,
             continuation: AsyncStream<ReadEvent>.Continuation) {
            self.fd = fd
            self.queue = queue
            self.limit = limit
            self.owned = owned
            self.continuation = continuation
            source = DispatchSource.makeReadSource(fileDescriptor: fd.rawValue, queue: queue)
            buffer = [UInt8](repeating: 0, count: chunkSize)
        }

        func start() {
            source.setEventHandler { [self] in drain() }
            if owned { source.setCancelHandler { [fd] in fd.close() } }
            source.resume()
            // Files epoll cannot watch (/dev/null, regular files) are always
            // readable but never signal it: read what is there once at start.
            queue.async { [self] in kick() }
        }

        /// The consumer took a chunk: resume reading once half the limit is free.
        func taken() {
            queue.async { [self] in
                waiting -= 1
                guard paused, !finished, waiting <= limit / 2 else { return }
                paused = false
                source.resume()
                kick()  // data that arrived meanwhile, and files that never signal
            }
        }

        func cancel() {
            queue.async { [self] in
                guard !finished else { return }
                finished = true
                if paused {
                    paused = false
                    source.resume()  // a suspended source would never run its cancel handler
                }
                source.cancel()
            }
        }

        private func kick() {
            dispatchPrecondition(condition: .onQueue(queue))
            if !finished, !paused, fd.hasInput { drain() }
        }

        private func drain() {
            dispatchPrecondition(condition: .onQueue(queue))
            while !finished, !paused {
                let count: Int
                do {
                    count = try fd.read(into: &buffer)
                } catch {
                    if error.wouldBlock { return }
                    end(error.reason)
                    return
                }
                if count > 0 {
                    waiting += 1
                    continuation.yield(.bytes(Array(buffer[0..<count])))
                    if waiting >= limit {
                        paused = true
                        source.suspend()
                        return
                    }
                    guard fd.hasInput else { return }
                    continue
                }
                end("end of file")
                return
            }
        }

        private func end(_ reason: String) {
            finished = true
            continuation.yield(.ended(reason))
            continuation.finish()
            source.cancel()
        }
    }
}

extension DispatchQueue {
    /// Runs `body` on this queue and returns its result: the way to make a
    /// blocking C call (open, connect, libcec_open) from async code without
    /// holding a thread of the cooperative pool.
    public func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            self.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
