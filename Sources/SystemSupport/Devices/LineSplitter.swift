/// Splits a byte stream into lines (LF, with an optional CR before it).
/// A line longer than `maximumLength` bytes is dropped whole and reported
/// once; invalid UTF-8 is repaired. The one line splitter for every line-based
/// input (lircd's socket, standard input, scripts' pipes).
public struct LineSplitter: Sendable {
    public enum Piece: Sendable, Equatable {
        case line(String)
        /// A line was longer than `maximumLength` and was dropped.
        case tooLong
    }

    public let maximumLength: Int
    private var pending: [UInt8] = []
    private var discarding = false

    public init(maximumLength: Int = 1024) {
        self.maximumLength = maximumLength
    }

    /// The complete lines in `bytes` (with what came before).
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !discarding {
                    if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                    pieces.append(.line(String(decoding: pending, as: UTF8.self)))
                }
                pending.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                pending.append(byte)
                if pending.count > maximumLength {
                    pending.removeAll(keepingCapacity: true)
                    discarding = true
                    pieces.append(.tooLong)
                }
            }
        }
        return pieces
    }

    /// At end of input: the last line if it had no newline.
    public mutating func finish() -> String? {
        defer {
            pending.removeAll()
            discarding = false
        }
        return pending.isEmpty || discarding ? nil : String(decoding: pending, as: UTF8.self)
    }
}
