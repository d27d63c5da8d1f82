import GatewayModel

/// One line from lircd's socket: `<code> <repeat> <button> <remote>`, e.g.
/// `00000000000000a4 00 KEY_PLAYPAUSE devinput-64`. Code and repeat count
/// are hexadecimal.
public struct LircLine: Sendable, Equatable {
    public var code: UInt64
    public var repeatCount: Int
    public var button: String
    public var remote: String

    /// Parses a line; nil for anything malformed (lircd also sends
    /// BEGIN/END replies to commands on the same socket).
    public init?(_ line: Substring) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 4, fields[0].count <= 16, fields[1].count <= 8,
              let code = UInt64(fields[0], radix: 16), let repeatCount = Int(fields[1], radix: 16),
              fields[2].allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != ":" }),
              fields[3].allSatisfy({ $0.isASCII && !$0.isWhitespace }) else { return nil }
        self.code = code
        self.repeatCount = repeatCount
        button = String(fields[2])
        remote = String(fields[3])
    }

    public var event: InputEvent {
        InputEvent(source: .lirc, key: button, remote: remote, isRepeat: repeatCount > 0)
    }
}
