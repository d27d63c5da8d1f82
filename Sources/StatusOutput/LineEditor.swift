import GatewayModel
/// A minimal line editor for a raw serial terminal: printable input is
/// echoed, Backspace deletes, Ctrl-U clears the line, Ctrl-C abandons it,
/// Enter submits. Escape sequences (arrow keys) and other control bytes are
/// ignored; a line longer than `maximumLength` bytes is discarded whole.
/// Pure: it turns input bytes into actions and the bytes to echo.
public struct LineEditor: Sendable {
    public enum Event: Sendable, Equatable {
        /// A complete line (without the terminator).
        case line(String)
        /// Ctrl-C: the line was abandoned.
        case interrupted
        /// The line grew past the limit and was discarded.
        case tooLong
    }

    public static let prompt = "cast-gateway> "
    public let maximumLength: Int
    /// Echo typed characters (off in JSON mode, where a script is typing).
    public var echo = true
    public private(set) var buffer: [UInt8] = []
    private var escape: EscapeState = .none
    private var lastWasCR = false
    private var overflowed = false

    private enum EscapeState { case none, escape, csi }

    public init(maximumLength: Int = 1024) {
        self.maximumLength = maximumLength
    }

    /// The text typed so far, as the terminal shows it (secrets masked).
    public var display: String { LineEditor.mask(String(decoding: buffer, as: UTF8.self)) }

    /// Feeds received bytes; returns what to echo and the events completed.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> (echo: String, events: [Event]) {
        var output = ""
        var events: [Event] = []
        for byte in bytes {
            switch escape {
            case .escape:
                escape = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") ? .csi : .none
                continue
            case .csi:
                if (0x40...0x7E).contains(byte) { escape = .none }
                continue
            case .none:
                break
            }
            let afterCR = lastWasCR
            lastWasCR = byte == 0x0D
            switch byte {
            case 0x0D, 0x0A:
                if byte == 0x0A, afterCR { continue }  // CR LF is one Enter
                if echo { output += "\r\n" }
                if overflowed {
                    events.append(.tooLong)
                } else {
                    events.append(.line(String(decoding: buffer, as: UTF8.self)))
                }
                buffer.removeAll(keepingCapacity: true)
                overflowed = false
            case 0x7F, 0x08:
                guard !buffer.isEmpty else { continue }
                // Remove one whole UTF-8 character: continuation bytes, then its lead byte.
                while let last = buffer.popLast(), last & 0xC0 == 0x80 {}
                if echo { output += "\u{08} \u{08}" }
            case 0x15:  // Ctrl-U
                if echo, !buffer.isEmpty { output += "\r\u{1B}[K" + LineEditor.prompt }
                buffer.removeAll(keepingCapacity: true)
                overflowed = false
            case 0x03:  // Ctrl-C
                if echo { output += "^C\r\n" }
                buffer.removeAll(keepingCapacity: true)
                overflowed = false
                events.append(.interrupted)
            case 0x1B:
                escape = .escape
            case 0x20...0x7E, 0x80...0xFF:
                guard !overflowed else { continue }
                guard buffer.count < maximumLength else {
                    overflowed = true
                    buffer.removeAll(keepingCapacity: true)
                    continue
                }
                buffer.append(byte)
                guard echo else { continue }
                // The argument of `creds` is echoed as stars.
                let typed = String(decoding: buffer, as: UTF8.self)
                let masked = LineEditor.isSecret(typed) && LineEditor.mask(typed) != typed
                let character = byte < 0x80 ? String(Unicode.Scalar(byte)) : LineEditor.completedCharacter(buffer)
                if !character.isEmpty { output += masked ? "*" : character }
            default:
                continue  // other control bytes
            }
        }
        return (output, events)
    }

    /// The last character once its final UTF-8 byte has arrived, else "".
    static func completedCharacter(_ buffer: [UInt8]) -> String {
        var start = buffer.count - 1
        while start > 0, buffer[start] & 0xC0 == 0x80 { start -= 1 }
        let lead = buffer[start]
        let expected = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        guard buffer.count - start == expected else { return "" }
        return String(validating: buffer[start...], as: UTF8.self) ?? ""
    }

    static func isSecret(_ typed: String) -> Bool {
        // Masked from the space on, before the first character of the secret is typed.
        typed.hasSuffix(" ") ? SecretCommand.isSecret(typed + "x") : SecretCommand.isSecret(typed)
    }

    /// `creds secret` shows as `creds ******`.
    static func mask(_ typed: String) -> String {
        guard isSecret(typed), let space = typed.firstIndex(of: " ") else { return typed }
        return String(typed[...space]) + String(repeating: "*", count: typed[typed.index(after: space)...].count)
    }
}
