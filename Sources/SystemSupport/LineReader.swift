import Dispatch

/// Lines from a file descriptor (standard input, a pipe) as an `AsyncStream`,
/// read through `FileDescriptorReader` (a Dispatch read source: an idle
/// reader costs no CPU) and split by `LineSplitter`. Lines longer than
/// `maximumLength` bytes are dropped whole; invalid UTF-8 is repaired. The
/// stream finishes at end of file. The descriptor is not closed.
public enum LineReader {
    public static func lines(fd: Int32, maximumLength: Int = 1024) -> AsyncStream<String> {
        let events = FileDescriptorReader.events(fd: fd, queue: DispatchQueue(label: "cast-gateway.lines.\(fd)"), owned: false)
        var iterator = events.makeAsyncIterator()
        var splitter = LineSplitter(maximumLength: maximumLength)
        var ready: [String] = []
        var ended = false
        return AsyncStream {
            while ready.isEmpty {
                guard !ended, let event = await iterator.next() else { return nil }
                switch event {
                case .bytes(let bytes):
                    for case .line(let line) in splitter.feed(bytes) { ready.append(line) }
                case .ended:
                    ended = true
                    if let last = splitter.finish() { ready.append(last) }
                    if ready.isEmpty { return nil }
                }
            }
            return ready.removeFirst()
        }
    }
}
