import Configuration

/// The config file as the browser may see it, and back: every value of a
/// key that holds a secret (the one list, `ConfigFile.looksSecret`:
/// credentials, passwords, tokens, keys) is replaced by `********`, and so is
/// every other line that mentions one (a commented-out password, a line
/// without `=`). What the browser sends back gets the secrets again: a
/// line still as it was shown is the old line; a `key = ********` takes the
/// old value of that key in that section. Pure text in, text out.
public enum ConfigRedaction {
    public static let mask = "********"

    /// `text` with every secret replaced by `********`.
    public static func redact(_ text: String) -> String {
        lines(of: text).map { redactLine($0.text, section: $0.section) }.joined(separator: "\n")
    }

    /// The browser's `edited` text with its `********` put back from `original`,
    /// or the problem (line of the edited text) when one stands for nothing.
    public static func restore(_ edited: String, original: String, path: String) throws(ConfigError) -> String {
        let old = lines(of: original)
        // A line shown masked and sent back unchanged is the old line (comments, odd lines too).
        var unchanged: [String: [String]] = [:]
        var values: [String: String] = [:]
        for line in old {
            let shown = redactLine(line.text, section: line.section)
            if shown != line.text { unchanged[identity(shown, line.section), default: []].append(line.text) }
            if let (key, value) = keyAndValue(line.text), let section = line.section { values["\(section).\(key)"] = value }
        }
        var output: [String] = []
        for (index, line) in lines(of: edited).enumerated() {
            guard line.text.contains(mask) else {
                output.append(line.text)
                continue
            }
            let shown = identity(line.text, line.section)
            if var same = unchanged[shown], !same.isEmpty {
                output.append(same.removeFirst())
                unchanged[shown] = same
                continue
            }
            if let (key, value) = keyAndValue(line.text), value == mask, let section = line.section,
               let kept = values["\(section).\(key)"] {
                let prefix = line.text[..<line.text.firstIndex(of: "=")!]
                output.append("\(prefix)= \(kept)")
                continue
            }
            throw ConfigError(file: path, line: index + 1, key: nil,
                              message: "\(mask) stands for a hidden value kept from the file, but the file has no such value here; "
                                  + "type the value, or put the line back as it was")
        }
        return output.joined(separator: "\n")
    }

    /// A shown line within its section: the same masked line in two sections stands for two different ones.
    private static func identity(_ line: String, _ section: String?) -> String {
        "\(section ?? "")\u{0}\(line)"
    }

    /// The lines of `text` with the section each is in (lower case, as ConfigFile reads it).
    static func lines(of text: String) -> [(text: String, section: String?)] {
        var section: String?
        var result: [(text: String, section: String?)] = []
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        for raw in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = String(raw)
            let trimmed = Substring(line).trimmingWhitespace()
            if trimmed.hasPrefix("["), trimmed.hasSuffix("]"), trimmed.count > 2 {
                section = String(trimmed.dropFirst().dropLast().trimmingWhitespace()).lowercased()
            }
            result.append((line, section))
        }
        return result
    }

    /// A `key = value` line's key and raw value (as written, quotes and comment included); nil for others.
    static func keyAndValue(_ line: String) -> (String, String)? {
        let trimmed = Substring(line).trimmingWhitespace()
        guard !trimmed.hasPrefix("#"), !trimmed.hasPrefix(";"), !trimmed.hasPrefix("["), let equals = trimmed.firstIndex(of: "=") else {
            return nil
        }
        let key = String(trimmed[..<equals].trimmingWhitespace())
        guard !key.isEmpty else { return nil }
        return (key, String(trimmed[trimmed.index(after: equals)...].trimmingWhitespace()))
    }

    static func redactLine(_ line: String, section: String?) -> String {
        if let (key, value) = keyAndValue(line) {
            guard ConfigFile.looksSecret(key), !value.isEmpty, value != mask else { return line }
            return "\(line[..<line.firstIndex(of: "=")!])= \(mask)"
        }
        let trimmed = Substring(line).trimmingWhitespace()
        guard !trimmed.isEmpty, !trimmed.hasPrefix("["), ConfigFile.looksSecret(String(trimmed)) else { return line }
        // A comment or malformed line that mentions a secret: its words stay hidden too.
        let indent = line.prefix { $0 == " " || $0 == "\t" }
        if trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { return "\(indent)\(trimmed.first!) \(mask)" }
        return "\(indent)\(mask)"
    }
}
