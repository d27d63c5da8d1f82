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
    public init(path: String, text: String) throws(ConfigError) {
        self.path = path
        var section: String?
        var seen: [String: Int] = [:]
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Substring(rawLine)
            if line.last == "\r" { line = line.dropLast() }
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
                throw ConfigError(file: path, line: lineNumber, key: nil, message: "expected 'key = value', found '\(trimmed)'")
            }
            let key = String(trimmed[..<equals]).trimmingSpaces()
            var value = String(trimmed[trimmed.index(after: equals)...]).trimmingSpaces()
            guard let section else {
                throw ConfigError(file: path, line: lineNumber, key: key, message: "key outside any [section]")
            }
            guard !key.isEmpty else {
                throw ConfigError(file: path, line: lineNumber, key: "[\(section)]", message: "empty key before '='")
            }
            // A trailing " # comment" is allowed unless the value is quoted.
            if value.hasPrefix("\""), value.count >= 2, let close = value.dropFirst().firstIndex(of: "\"") {
                value = String(value[value.index(after: value.startIndex)..<close])
            } else if let hash = value.firstRange(of: " #") {
                value = String(value[..<hash.lowerBound]).trimmingSpaces()
            }
            let qualified = "\(section)\u{0}\(key)"
            if let first = seen[qualified] {
                throw ConfigError(file: path, line: lineNumber, key: "[\(section)] \(key)", message: "set twice (first on line \(first))")
            }
            seen[qualified] = lineNumber
            entries.append(Entry(section: section, key: key, value: value, line: lineNumber))
        }
    }

    public func entries(in section: String) -> [Entry] {
        entries.filter { $0.section == section }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = lastIndex(where: { !isSpace($0) })!
        return String(self[start...end])
    }
}
