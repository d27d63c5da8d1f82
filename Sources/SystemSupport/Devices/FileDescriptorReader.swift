#if canImport(Glibc)
import Glibc
#endif
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
public enum FileDescriptorReader {
    public static func events(fd: Int32, queue: DispatchQueue, chunkSize: Int = 4096, owned: Bool = true) -> AsyncStream<ReadEvent> {
        AsyncStream(bufferingPolicy: .bufferingOldest(256)) { continuation in
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            var buffer = [UInt8](repeating: 0, count: chunkSize)
            let drain = {
                dispatchPrecondition(condition: .onQueue(queue))
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        continuation.yield(.bytes(Array(buffer[0..<count])))
                        guard FileDescriptorReader.hasMore(fd) else { return }
                        continue
                    }
                    if count < 0, errno == EINTR { continue }
                    if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
                    continuation.yield(.ended(count == 0 ? "end of file" : String(cString: strerror(errno))))
                    continuation.finish()
                    source.cancel()
                    return
                }
            }
            source.setEventHandler(handler: drain)
            // Files epoll cannot watch (/dev/null, regular files) are always
            // readable but never signal it: read what is there once at start.
            let kick = UncheckedSendable((source, drain))  // both confined to `queue`
            queue.async { if FileDescriptorReader.hasMore(fd), !kick.value.0.isCancelled { kick.value.1() } }
            if owned { source.setCancelHandler { close(fd) } }
            let retained = UncheckedSendable(source)
            continuation.onTermination = { _ in retained.value.cancel() }
            source.resume()
        }
    }
}

extension FileDescriptorReader {
    /// Whether a read of `fd` would return at once (data, end of file or an error).
    static func hasMore(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents != 0
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
