#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Lines from a file descriptor (standard input, a pipe) as an `AsyncStream`,
/// read by a Dispatch read source, so an idle reader costs no CPU. Lines
/// longer than `maximumLength` bytes are dropped whole; invalid UTF-8 is
/// repaired. The stream finishes at end of file.
public enum LineReader {
    public static func lines(fd: Int32, maximumLength: Int = 1024) -> AsyncStream<String> {
        AsyncStream { continuation in
            let queue = DispatchQueue(label: "cast-gateway.lines.\(fd)")
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            var pending: [UInt8] = []
            var discarding = false
            var buffer = [UInt8](repeating: 0, count: 4096)
            source.setEventHandler {
                // One read per readiness event: it cannot block, and the
                // descriptor is left in blocking mode (it may be a terminal).
                do {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count < 0, errno == EINTR || errno == EAGAIN { return }
                    if count <= 0 {
                        if !pending.isEmpty, !discarding { continuation.yield(String(decoding: pending, as: UTF8.self)) }
                        source.cancel()
                        continuation.finish()
                        return
                    }
                    for byte in buffer[0..<count] {
                        if byte == UInt8(ascii: "\n") {
                            if !discarding {
                                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                                continuation.yield(String(decoding: pending, as: UTF8.self))
                            }
                            pending.removeAll(keepingCapacity: true)
                            discarding = false
                        } else if !discarding {
                            pending.append(byte)
                            if pending.count > maximumLength {
                                pending.removeAll(keepingCapacity: true)
                                discarding = true
                            }
                        }
                    }
                }
            }
            let retained = UncheckedSendable(source)
            continuation.onTermination = { _ in retained.value.cancel() }
            source.resume()
        }
    }
}
