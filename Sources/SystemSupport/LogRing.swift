import Synchronization

/// The daemon's recent log lines, kept in memory for the web page's Logs
/// (a support case without ssh): at most `maximumLines` lines and about
/// `maximumBytes` bytes, the oldest dropped first. Every line `Logger`
/// writes goes in, as written (escaped, capped; secrets are never logged).
public final class LogRing: Sendable {
    public static let shared = LogRing(maximumLines: 500, maximumBytes: 64 * 1024)

    public let maximumLines: Int
    public let maximumBytes: Int
    private let state = Mutex(State())

    private struct State {
        var lines: [String] = []
        /// Index of the oldest line once `lines` is full (a circular buffer: no shifting per line).
        var oldest = 0
        var bytes = 0
    }

    public init(maximumLines: Int, maximumBytes: Int) {
        self.maximumLines = max(1, maximumLines)
        self.maximumBytes = max(1, maximumBytes)
    }

    public func append(_ line: String) {
        let size = line.utf8.count
        state.withLock { state in
            if state.lines.count < maximumLines && state.oldest == 0 {
                state.lines.append(line)
            } else {
                state.bytes -= state.lines[state.oldest].utf8.count
                state.lines[state.oldest] = line
                state.oldest = (state.oldest + 1) % state.lines.count
            }
            state.bytes += size
            // Over the byte bound: drop the oldest lines (rare: lines are short), keeping the newest.
            while state.bytes > maximumBytes && state.lines.count > 1 {
                let ordered = Array(state.lines[state.oldest...] + state.lines[..<state.oldest])
                state.bytes -= ordered[0].utf8.count
                state.lines = Array(ordered.dropFirst())
                state.oldest = 0
            }
        }
    }

    /// The lines kept, oldest first.
    public var lines: [String] {
        state.withLock { Array($0.lines[$0.oldest...] + $0.lines[..<$0.oldest]) }
    }
}
