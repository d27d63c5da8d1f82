import Dispatch

/// Lines from a file descriptor (standard input, a pipe) as an `AsyncStream`,
/// read through `FileDescriptorReader` (a Dispatch read source: an idle
/// reader costs no CPU) and split by `LineSplitter`. Lines longer than
/// `maximumLength` bytes are dropped whole; invalid UTF-8 is repaired. The
/// stream finishes at end of file. The descriptor is not closed.
public enum LineReader {
    public static func lines(fd: Int32, maximumLength: Int = 1024) -> AsyncStream<String> {
        lines(fd: FileDescriptor(rawValue: fd), maximumLength: maximumLength)
    }

    public static func lines(fd: FileDescriptor, maximumLength: Int = 1024) -> AsyncStream<String> {
        let events = FileDescriptorReader.events(fd: fd, queue: DispatchQueue(label: "cast-gateway.lines.\(fd.rawValue)"), owned: false)
        // The stream has one consumer, which asks for one line at a time.
        let state = UncheckedSendable(Lines(events.makeAsyncIterator(), maximumLength: maximumLength))
        return AsyncStream { await state.value.next() }
    }

    /// The reading state behind one stream of lines.
    private final class Lines {
        private var events: AsyncStream<ReadEvent>.Iterator
        private var splitter: LineSplitter
        private var ready: [String] = []
        private var ended = false

        init(_ events: AsyncStream<ReadEvent>.Iterator, maximumLength: Int) {
            self.events = events
            splitter = LineSplitter(maximumLength: maximumLength)
        }

        func next() async -> String? {
            while ready.isEmpty {
                guard !ended, let event = await events.next() else { return nil }
                switch event {
                case .bytes(let bytes):
                    for case .line(let line) in splitter.feed(bytes) { ready.append(line) }
                case .ended:
                    ended = true
                    if let last = splitter.finish() { ready.append(last) }
                }
            }
            return ready.removeFirst()
        }
    }
}
