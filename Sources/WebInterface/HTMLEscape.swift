/// Escapes text for HTML element content and quoted attribute values:
/// `& < > " '` become entities, and control characters other than tab
/// and newline are dropped. Everything the server renders into a page goes
/// through this; the page's script shows state with `textContent` only.
public enum HTMLEscape {
    public static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            case "\t", "\n": output.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
