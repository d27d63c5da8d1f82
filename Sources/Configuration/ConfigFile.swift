import SystemSupport
/// The raw content of a `key = value` file with `[sections]` and `#`
/// comments, every entry remembering its line for error messages.
public struct ConfigFile: Sendable {
    public struct Entry: Sendable, Equatable {
        public let section: String
        public let key: String
        public let value: String
        public let line: Int
    }

    public let path: String
    public private(set) var entries: [Entry] = []
    /// Sections in order of appearance, with the line of their header.
    public private(set) var sections: [(name: String, line: Int)] = []

    /// Parses `text`. Keys before any section header, malformed lines,
    /// unterminated headers and duplicate keys are errors.
    /// `repeatable` names keys (as `section.key`) that may appear more than
    /// once, such as a board profile's `board.config-txt` lines.
    public init(path: String, text: String, repeatable: Set<String> = []) throws(ConfigError) {
        self.path = path
        var section: String?
        var seen: [String: Int] = [:]
        var lineNumber = 0
        // Windows editors (Notepad on the SD card's boot partition) save a
        // byte-order mark and CRLF line ends. "\r\n" is one Character in Swift.
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        for line in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let trimmed = line.trimmingSpaces()
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            if trimmed.hasPrefix("[") {
                guard trimmed.hasSuffix("]"), trimmed.count > 2 else {
                    throw ConfigError(file: path, line: lineNumber, key: nil, message: "section header must look like [name]")
                }
                let name = String(trimmed.dropFirst().dropLast()).trimmingSpaces().lowercased()
                section = name
                sections.append((name, lineNumber))
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw ConfigError(file: path, line: lineNumber, key: nil,
                                  message: "expected 'key = value', found \(ConfigFile.quotedForError(trimmed))")
            }
            let key = String(trimmed[..<equals]).trimmingSpaces()
            var value = String(trimmed[trimmed.index(after: equals)...]).trimmingSpaces()
            let shownKey = ConfigFile.keyForError(key)
            guard let section else {
                throw ConfigError(file: path, line: lineNumber, key: shownKey, message: "key outside any [section]")
            }
            guard !key.isEmpty else {
                throw ConfigError(file: path, line: lineNumber, key: "[\(section)]", message: "empty key before '='")
            }
            if line.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) {
                throw ConfigError(file: path, line: lineNumber, key: "[\(section)] \(shownKey)",
                                  message: "contains a control character (a NUL byte or similar); the file is damaged or not text")
            }
            guard key.allSatisfy(ConfigFile.isKeyCharacter) else {
                throw ConfigError(file: path, line: lineNumber, key: "[\(section)] \(shownKey)",
                                  message: "is not a key name: keys are letters, digits and - _ . : * (is a '=' missing or misplaced?)")
            }
            // A trailing " # comment" is allowed unless the value is quoted.
            if value.hasPrefix("\"") {
                guard value.count >= 2, let close = value.dropFirst().firstIndex(of: "\"") else {
                    throw ConfigError(file: path, line: lineNumber, key: "[\(section)] \(key)",
                                      message: "has an opening quote (\") without a closing one")
                }
                value = String(value[value.index(after: value.startIndex)..<close])
            } else if let hash = value.firstRange(of: " #") {
                value = String(value[..<hash.lowerBound]).trimmingSpaces()
            }
            let qualified = "\(section).\(key)"
            if let first = seen[qualified], !repeatable.contains(qualified) {
                throw ConfigError(file: path, line: lineNumber, key: "[\(section)] \(key)", message: "set twice (first on line \(first))")
            }
            seen[qualified] = lineNumber
            entries.append(Entry(section: section, key: key, value: value, line: lineNumber))
        }
    }

    /// Words that mark a line or key as holding a secret: such text is never
    /// repeated in an error message (which ends up in logs and on consoles).
    static let secretWords = ["cred", "password", "passwd", "secret", "token", "psk", "private"]

    /// Whether a key (or a malformed line) looks like it holds a secret.
    public static func looksSecret(_ text: String) -> Bool {
        // Letters only, so that `cre\0dentials` or `pass-word` still count.
        let letters = String(text.lowercased().filter { $0.isLetter })
        return secretWords.contains { letters.contains($0.filter(\.isLetter)) }
    }

    /// The characters of key names: letters, digits and `- _ . : *` (keymaps use `REMOTE:BUTTON`).
    static func isKeyCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "-_.:*".contains(character))
    }

    /// A key as an error may show it: a plain name as it is; a key that looks
    /// like it swallowed a secret (`credentials:hunter2`) or is not a name at all, hidden.
    static func keyForError(_ key: String) -> String {
        let plainName = key.count <= 40 && key.allSatisfy { ($0.isASCII && $0.isLetter) || $0 == "-" }
        if plainName { return key }
        if looksSecret(key) || !key.allSatisfy(isKeyCharacter) { return "<a malformed key, not shown>" }
        return key
    }

    /// `'text'` for an error message, or a description when it may be a secret.
    public static func quotedForError(_ text: String) -> String {
        if looksSecret(text) { return "a line that mentions a credential (its text is not shown)" }
        return "'\(text.escapingControlCharacters(maximumLength: 80))'"
    }

    /// Entries of `other` whose section and key this file does not set, added
    /// beneath this file's own (a board profile's defaults).
    public func addingDefaults(from other: ConfigFile) -> ConfigFile {
        var merged = self
        let own = Set(entries.map { "\($0.section).\($0.key)" })
        merged.entries += other.entries.filter { !own.contains("\($0.section).\($0.key)") }
        return merged
    }

    public func entries(in section: String) -> [Entry] {
        entries.filter { $0.section == section }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    public func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation here).
    public func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
