import Configuration
import SystemSupport

/// A board profile (`boards/rpi4.conf`, installed in
/// `/usr/share/cast-gateway/boards`): the `[board]` facts an image needs,
/// and defaults for the ordinary sections (console tty, LED lines, CEC
/// adapter, IR input) that the config file's own values override.
public struct BoardProfile: Sendable {
    /// `[board]` in a profile.
    public struct Facts: SettingsSection {
        public static let sectionName = "board"
        public var name = ""
        public var model = ""
        public var architecture = ""
        public var bootPartition: String?
        /// The `dtoverlay=gpio-ir,...` line for an IR receiver, if the board has one.
        public var irOverlay: String?
        /// Who decodes IR: the kernel (evdev) or lircd.
        public var irDecoder: String?
        /// Lines the image's `config.txt` must carry.
        public var configTxt: [String] = []
        /// Where U-Boot puts the kernel, its compressed copy and the initrd
        /// (`NAME=0xADDRESS ...`, boards with A/B root slots).
        public var ubootAddresses: [String] = []
        /// Where U-Boot's environment is: `fat` (uboot.env on the boot
        /// partition) or `script` (the boot script keeps the A/B variables there).
        public var ubootEnvironment: String?

        public init() {}

        public init(from section: inout ConfigSection) throws(ConfigError) {
            name = try section.string("name") ?? ""
            model = try section.string("model") ?? ""
            architecture = try section.value("arch", expected: "arm64 or amd64") { ["arm64", "amd64"].contains($0) ? $0 : nil } ?? ""
            bootPartition = try section.string("boot-partition")
            irOverlay = try section.string("ir-overlay")
            irDecoder = try section.value("ir-decoder", expected: "kernel or lircd") { ["kernel", "lircd"].contains($0) ? $0 : nil }
            _ = section.entry("config-txt")
            configTxt = section.entries.filter { $0.key == "config-txt" }.map(\.value)
            ubootAddresses = try section.value("uboot-addresses", expected: "NAME=0xADDRESS pairs separated by spaces") {
                Facts.addresses($0)
            } ?? []
            ubootEnvironment = try section.value("uboot-env", expected: "fat or script") { ["fat", "script"].contains($0) ? $0 : nil }
        }

        /// The pairs of `kernel_addr_r=0x00200000 ramdisk_addr_r=0x0c000000`,
        /// or nil for anything else.
        static func addresses(_ text: String) -> [String]? {
            let pairs = text.split(separator: " ")
            guard !pairs.isEmpty else { return nil }
            for pair in pairs {
                let parts = pair.split(separator: "=", omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty,
                      parts[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
                      parts[1].hasPrefix("0x"), parts[1].count > 2,
                      parts[1].dropFirst(2).allSatisfy(\.isHexDigit) else { return nil }
            }
            return pairs.map(String.init)
        }
    }

    public var facts: Facts
    /// The profile as a config file, merged beneath the user's.
    public var file: ConfigFile

    /// Where profiles are looked for: `CAST_GATEWAY_BOARDS`, then the installed directory.
    public static var searchPath: [String] {
        var paths: [String] = []
        if let custom = Environment.value("CAST_GATEWAY_BOARDS") { paths.append(custom) }
        paths.append("/usr/share/cast-gateway/boards")
        return paths
    }

    /// Loads and validates profile `name` from the first directory that has it.
    public static func load(name: String, directories: [String] = BoardProfile.searchPath) throws(ConfigError) -> BoardProfile {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw ConfigError(file: "board", line: nil, key: nil, message: "'\(name)' is not a board name; see 'cast-gateway boards'")
        }
        for directory in directories {
            let path = "\(directory)/\(name).conf"
            guard let text = try? FileSystem.readText(path) else { continue }
            return try BoardProfile(path: path, text: text)
        }
        throw ConfigError(file: name, line: nil, key: nil,
                          message: "no board profile '\(name)' in \(directories.joined(separator: " or ")); see 'cast-gateway boards'")
    }

    /// Parses a profile; every section in it must be valid config.
    public init(path: String, text: String) throws(ConfigError) {
        file = try ConfigFile(path: path, text: text, repeatable: ["board.config-txt"])
        facts = try file.settings(Facts.self)
        // Its other sections are validated as part of a configuration.
        _ = try DaemonSettings(file: file, board: nil, isProfile: true)
    }

    /// Every profile found, by name (`cast-gateway boards`).
    public static func all(directories: [String] = BoardProfile.searchPath) -> [(name: String, profile: Result<BoardProfile, ConfigError>)] {
        var seen = Set<String>()
        var found: [(String, Result<BoardProfile, ConfigError>)] = []
        for directory in directories {
            for file in FileSystem.directoryEntries(directory).sorted() where file.hasSuffix(".conf") {
                let name = String(file.dropLast(5))
                guard seen.insert(name).inserted else { continue }
                found.append((name, Result { () throws(ConfigError) -> BoardProfile in try BoardProfile.load(name: name, directories: [directory]) }))
            }
        }
        return found
    }
}
