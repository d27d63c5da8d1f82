import SystemSupport
/// One section of a config file, read by the settings type that owns it.
///
/// Every key a settings type asks for becomes one of the section's known
/// keys, so the "unknown key" error lists exactly what the parsing code
/// reads: the table cannot drift from the declarations. Ask for every key
/// unconditionally, then validate.
public struct ConfigSection {
    public let name: String
    public let path: String
    /// The line of the section's header, when the file has one.
    public let headerLine: Int?
    public let entries: [ConfigFile.Entry]
    public private(set) var knownKeys: [String] = []
    private var acceptsAnyKey = false

    public init(name: String, path: String, headerLine: Int?, entries: [ConfigFile.Entry]) {
        self.name = name
        self.path = path
        self.headerLine = headerLine
        self.entries = entries
    }

    /// Whether the file has this section at all (header or entries).
    public var isPresent: Bool { headerLine != nil || !entries.isEmpty }

    /// The entry for `key`, if set; declares `key` as known.
    public mutating func entry(_ key: String) -> ConfigFile.Entry? {
        if !knownKeys.contains(key) { knownKeys.append(key) }
        return entries.first { $0.key == key }
    }

    /// Every entry, for sections whose keys are data (keymaps).
    public mutating func allEntries() -> [ConfigFile.Entry] {
        acceptsAnyKey = true
        return entries
    }

    /// A non-empty string.
    public mutating func string(_ key: String) throws(ConfigError) -> String? {
        guard let entry = entry(key) else { return nil }
        guard !entry.value.isEmpty else { throw error(entry, "must not be empty") }
        return entry.value
    }

    public mutating func bool(_ key: String) throws(ConfigError) -> Bool? {
        guard let entry = entry(key) else { return nil }
        switch entry.value.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw error(entry, "must be true or false, not '\(entry.value)'")
        }
    }

    /// A value parsed by `parse`; `expected` says what is wanted when it fails.
    public mutating func value<T>(_ key: String, expected: String, _ parse: (String) -> T?) throws(ConfigError) -> T? {
        guard let entry = entry(key) else { return nil }
        guard !entry.value.isEmpty else { throw error(entry, "must not be empty") }
        guard let value = parse(entry.value) else {
            throw error(entry, "must be \(expected), got '\(entry.value)'")
        }
        return value
    }

    /// A `ConfigError` at `entry`. The value of a key that looks like a secret is never repeated.
    public func error(_ entry: ConfigFile.Entry, _ message: String) -> ConfigError {
        let shown = ConfigFile.looksSecret(entry.key) && !entry.value.isEmpty
            ? message.replacingAll(entry.value, with: "<hidden>") : message
        return ConfigError(file: path, line: entry.line, key: "[\(name)] \(entry.key)", message: shown)
    }

    /// After reading: fails on the first entry whose key was never asked for.
    public func checkForUnknownKeys() throws(ConfigError) {
        guard !acceptsAnyKey, let unknown = entries.first(where: { !knownKeys.contains($0.key) }) else { return }
        throw ConfigError(file: path, line: unknown.line, key: "[\(name)] \(unknown.key)",
                          message: "unknown key; keys in [\(name)]: \(knownKeys.joined(separator: ", "))")
    }
}

/// A module's typed settings for one section of the config file, e.g. the
/// LIRC source's `[lirc]`. Each section is parsed once, into its owner's type;
/// no string-keyed dictionaries travel further.
public protocol SettingsSection: Sendable, Equatable {
    /// The section's name in the file (`lirc`, `keys.cec`).
    static var sectionName: String { get }
    /// Reads and validates the section (absent keys keep their defaults).
    init(from section: inout ConfigSection) throws(ConfigError)
}

extension ConfigFile {
    /// The section `name` of this file, ready to be read.
    public func section(_ name: String) -> ConfigSection {
        ConfigSection(name: name, path: path, headerLine: sections.first { $0.name == name }?.line,
                      entries: entries(in: name))
    }

    /// Parses section `S` and rejects keys it does not know.
    public func settings<S: SettingsSection>(_ type: S.Type) throws(ConfigError) -> S {
        var section = section(S.sectionName)
        let settings = try S(from: &section)
        try section.checkForUnknownKeys()
        return settings
    }
}
