extension String {
    /// The text made safe to print on a terminal, in a log line or in an
    /// sd_notify STATUS: control characters (C0, DEL, and C1, which some
    /// terminals treat like ESC) become visible escapes such as `\n` and
    /// `\x1b`, so a title from a receiver can neither forge a log line nor
    /// move the cursor. Text longer than `maximumLength` characters is cut and
    /// says how much was left out.
    public func escapingControlCharacters(maximumLength: Int = .max) -> String {
        let needsEscaping = unicodeScalars.contains { $0.isControlCharacter }
        if !needsEscaping, utf8.count <= maximumLength { return self }  // the common case: no copy
        var output = ""
        var kept = 0
        var index = startIndex
        while index < endIndex, kept < maximumLength {
            let character = self[index]
            for scalar in character.unicodeScalars {
                if scalar.isControlCharacter {
                    output += scalar.escaped
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
            kept += 1
            index = self.index(after: index)
        }
        if index < endIndex {
            output += "… (\(self[index...].utf8.count) more bytes)"
        }
        return output
    }
}

extension Unicode.Scalar {
    /// C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F).
    var isControlCharacter: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
    }

    /// `\n`, `\r`, `\t`, or `\xNN` / `\u{NN}` for the rest.
    var escaped: String {
        switch value {
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        default:
            let hex = String(value, radix: 16)
            let padded = hex.count < 2 ? "0" + hex : hex
            return value < 0x80 ? "\\x" + padded : "\\u{" + padded + "}"
        }
    }
}
