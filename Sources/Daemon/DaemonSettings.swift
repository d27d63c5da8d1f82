import Configuration
import Discovery
import Fleet
import GatewayCore
import GatewayModel
import Kiosk
import MediaServer
import RemoteInput
import StatusOutput
import SystemSupport
import WebInterface

/// The whole configuration of `cast-gateway run`: each section parsed once
/// into its module's own settings type. A board profile, when named, gives
/// defaults beneath the file's own values.
public struct DaemonSettings: Sendable, Equatable {
    public static let defaultPath = "/etc/cast-gateway/gateway.conf"

    /// `[board]` in the config file: which profile applies.
    public struct BoardChoice: SettingsSection {
        public static let sectionName = "board"
        public var name: String?

        public init(name: String? = nil) {
            self.name = name
        }

        public init(from section: inout ConfigSection) throws(ConfigError) {
            name = try section.string("name")
        }
    }

    public var log = LogSettings()
    public var gateway = GatewaySettings()
    public var lirc = LircSettings()
    public var cec = CecSettings()
    public var evdev = EvdevSettings()
    public var console = ConsoleSettings()
    public var leds = LEDSettings()
    public var keymaps: [InputEvent.Source: KeymapSettings] = [:]
    public var mqtt = MQTTSection()
    public var media = MediaSection()
    public var kiosk = KioskSettings()
    public var discovery = DiscoverySettings()
    public var web = WebSection()
    public var update = UpdateSettings()
    /// The board profile in force, if any.
    public var board: BoardProfile.Facts?
    /// Which inputs the file itself asks for (its section or keymap is
    /// there): only their absence is a problem worth an LED.
    public var expectsLirc = false
    public var expectsCec = false
    /// Non-fatal findings (e.g. a world-readable file holding credentials).
    public var warnings: [String] = []

    public init() {}

    /// Every section this version knows, for the "unknown section" error.
    static let knownSections: [String] = [
        LogSettings.sectionName, DeviceSettings.sectionName, CastSettings.sectionName, PresetSettings.sectionName,
        LircSettings.sectionName, CecSettings.sectionName, EvdevSettings.sectionName, ConsoleSettings.sectionName,
        LEDSettings.sectionName, BoardChoice.sectionName, MQTTSection.sectionName, MediaSection.sectionName, KioskSettings.sectionName,
        DiscoverySettings.sectionName, WebSection.sectionName, UpdateSettings.sectionName,
    ] + KeymapSettings.sources.map(KeymapSettings.sectionName(for:))

    /// Parses `file` (with `board`'s defaults beneath it). `isProfile`: the
    /// file is a board profile, whose `[board]` section holds the board's facts.
    public init(file: ConfigFile, board: BoardProfile?, isProfile: Bool = false) throws(ConfigError) {
        for (name, line) in file.sections where !DaemonSettings.knownSections.contains(name) {
            throw ConfigError(file: file.path, line: line, key: "[\(name)]",
                              message: "unknown section; known sections: \(DaemonSettings.knownSections.sorted().joined(separator: ", "))")
        }
        let own = Set(file.sections.map(\.name)).union(file.entries.map(\.section))
        expectsLirc = own.contains(LircSettings.sectionName) || own.contains(KeymapSettings.sectionName(for: .lirc))
        expectsCec = own.contains(CecSettings.sectionName) || own.contains(KeymapSettings.sectionName(for: .cec))
        let merged = board.map { file.addingDefaults(from: $0.file) } ?? file
        self.board = board?.facts
        log = try merged.settings(LogSettings.self)
        gateway = try GatewaySettings(file: merged)
        lirc = try merged.settings(LircSettings.self)
        cec = try merged.settings(CecSettings.self)
        evdev = try merged.settings(EvdevSettings.self)
        console = try merged.settings(ConsoleSettings.self)
        leds = try merged.settings(LEDSettings.self)
        mqtt = try merged.settings(MQTTSection.self)
        media = try merged.settings(MediaSection.self)
        kiosk = try merged.settings(KioskSettings.self)
        discovery = try merged.settings(DiscoverySettings.self)
        web = try merged.settings(WebSection.self)
        update = try merged.settings(UpdateSettings.self)
        for source in KeymapSettings.sources {
            keymaps[source] = try KeymapSettings(source: source, file: merged)
        }
        if isProfile {
            _ = try file.settings(BoardProfile.Facts.self)
        } else {
            _ = try file.settings(BoardChoice.self)
        }
    }

    /// Reads and validates the config at `path`; `boardOverride` (`run --board`)
    /// wins over the file's `[board] name`.
    /// `text`, when given, is the file's proposed content (the web page's
    /// editor): checked as if it were at `path`, which is not read.
    public static func load(path: String, text proposed: String? = nil, boardOverride: String? = nil,
                            boardDirectories: [String] = BoardProfile.searchPath) throws(ConfigError) -> DaemonSettings {
        let text: String
        if let proposed {
            text = proposed
        } else {
            do {
                text = try FileSystem.readText(path)
            } catch {
                throw ConfigError(file: path, line: nil, key: nil, message: "\(error)")
            }
        }
        let file = try ConfigFile(path: path, text: text)
        let choice = try file.settings(BoardChoice.self)
        let board = try (boardOverride ?? choice.name).map { name throws(ConfigError) in
            try BoardProfile.load(name: name, directories: boardDirectories)
        }
        var settings = try DaemonSettings(file: file, board: board)
        let holdsSecrets = settings.gateway.cast.launchCredentials != nil || settings.gateway.cast.mediaCredentials != nil
        if holdsSecrets, let mode = FileSystem.permissions(of: path), mode & 0o044 != 0 {
            settings.warnings.append(
                "\(path) holds credentials but is readable by other users (mode \(String(mode, radix: 8))); run: chmod 600 \(path)")
        }
        return settings
    }

    /// The devices discovery must never drop: the one `[device] name` or `id` follows.
    public var keptDevices: [String] {
        switch gateway.device.target {
        case .name(let name)?: [name]
        case .id(let id)?: [id]
        case .address?, nil: []
        }
    }

    /// The keymaps for the remote control: the standard ones with the file's overrides.
    public var remoteKeymaps: [InputEvent.Source: Keymap] {
        var maps: [InputEvent.Source: Keymap] = [:]
        for source in KeymapSettings.sources {
            maps[source] = (keymaps[source] ?? KeymapSettings(source: source)).keymap
        }
        return maps
    }
}
