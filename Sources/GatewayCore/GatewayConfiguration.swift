#if canImport(Glibc)
import Glibc
#endif
import CastProtocol
import GatewayModel
import SystemSupport

/// The daemon's configuration, read from `/etc/cast-gateway/gateway.conf`
/// (or `--config FILE`). Section and key names are a contract that
/// provisioning scripts rely on; see the README for the reference.
public struct GatewayConfiguration: Sendable {
    /// Which device to control.
    public enum DeviceTarget: Sendable, Equatable {
        case address(host: String, port: UInt16)
        /// Friendly name, resolved by mDNS discovery.
        case name(String)
        /// Device id (uuid without dashes), resolved by mDNS discovery.
        case id(String)
    }

    /// How the gateway appears on the HDMI-CEC bus.
    public enum CECRole: String, Sendable, CaseIterable {
        case playback
        case audioSystem = "audio-system"
        case monitor
    }

    /// A media URL started by `preset N` (the hotel "channel").
    public struct Preset: Sendable, Equatable {
        public var url: String
        public var title: String?

        public init(url: String, title: String? = nil) {
            self.url = url
            self.title = title
        }
    }

    /// One keymap line: an input's key name mapped to an action.
    public struct KeyBinding: Sendable, Equatable {
        public var input: String
        public var action: Action
        public var line: Int
    }

    public var device: DeviceTarget?
    public var appID = CastAppID.defaultMediaReceiver
    public var allowsAndroidReceiver = false
    public var credentials: LaunchCredentials?
    public var logLevel = LogLevel.info
    public var lircSocket: String?
    public var cecAdapter: String?
    public var cecRole = CECRole.playback
    public var cecOSDName = "Cast Gateway"
    /// Power the TV on when casting starts.
    public var tvPowerOnWhenCasting = false
    /// The TV input to select then, as a physical address (0x1000 = 1.0.0.0).
    public var tvInput: UInt16?
    /// Put the TV in standby after this long with nothing cast.
    public var tvStandbyAfter: Duration?
    public var consoleDevice = "/dev/serial0"
    public var consoleBaud = 115_200
    /// LED role (`power`, `link`, `play`, `error`) -> GPIO line spec.
    public var leds: [String: String] = [:]
    public var evdevDevice: String?
    public var evdevGrab = false
    /// Keymaps by source: `cec`, `lirc`, `evdev`.
    public var keymaps: [String: [KeyBinding]] = [:]
    public var presets: [Int: Preset] = [:]
    /// Non-fatal findings (e.g. a world-readable file holding credentials).
    public var warnings: [String] = []
    /// The sections the file contains (an input is expected when its section is there).
    public var sections: Set<String> = []

    /// Whether the config asks for `input` (`lirc`, `cec`, `evdev`): its section or its keymap is present.
    public func configures(_ input: String) -> Bool {
        sections.contains(input) || sections.contains("keys.\(input)")
    }

    public init() {}

    public static let defaultPath = "/etc/cast-gateway/gateway.conf"
    public static let baudRates = [9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600]

    /// Reads and validates `path`.
    public static func load(path: String) throws(ConfigError) -> GatewayConfiguration {
        let text: String
        do {
            text = try FileSystem.readText(path)
        } catch {
            throw ConfigError(file: path, line: nil, key: nil, message: "\(error)")
        }
        var configuration = try GatewayConfiguration(file: try ConfigFile(path: path, text: text))
        if configuration.credentials != nil, let mode = FileSystem.permissions(of: path), mode & 0o044 != 0 {
            configuration.warnings.append(
                "\(path) holds launch credentials but is readable by other users (mode \(String(mode, radix: 8))); run: chmod 600 \(path)")
        }
        return configuration
    }

    /// Validates parsed entries: unknown sections and keys, and bad values, are errors.
    public init(file: ConfigFile) throws(ConfigError) {
        let path = file.path
        func fail(_ entry: ConfigFile.Entry, _ message: String) -> ConfigError {
            // The value of a key that looks like a secret is never repeated.
            let shown = ConfigFile.looksSecret(entry.key) && !entry.value.isEmpty
                ? message.replacingAll(entry.value, with: "<hidden>") : message
            return ConfigError(file: path, line: entry.line, key: "[\(entry.section)] \(entry.key)", message: shown)
        }
        func bool(_ entry: ConfigFile.Entry) throws(ConfigError) -> Bool {
            switch entry.value.lowercased() {
            case "true", "yes", "on", "1": return true
            case "false", "no", "off", "0": return false
            default: throw fail(entry, "must be true or false, not '\(entry.value)'")
            }
        }
        func nonEmpty(_ entry: ConfigFile.Entry) throws(ConfigError) -> String {
            guard !entry.value.isEmpty else { throw fail(entry, "must not be empty") }
            return entry.value
        }

        for (name, line) in file.sections where !GatewayConfiguration.knownSections.contains(name) {
            throw ConfigError(file: path, line: line, key: "[\(name)]",
                              message: "unknown section; known sections: \(GatewayConfiguration.knownSections.sorted().joined(separator: ", "))")
        }
        sections = Set(file.sections.map(\.name))
        var credentialsValue: String?
        var credentialsType: String?
        var deviceEntry: ConfigFile.Entry?

        for entry in file.entries {
            if entry.section.hasPrefix("keys.") {
                guard let action = Action(name: entry.value) else {
                    throw fail(entry, "unknown action '\(entry.value)'; actions: \(Action.nameForms.joined(separator: ", "))")
                }
                let source = String(entry.section.dropFirst("keys.".count))
                if let problem = GatewayConfiguration.keyNameProblem(entry.key, source: source) { throw fail(entry, problem) }
                keymaps[source, default: []].append(KeyBinding(input: entry.key, action: action, line: entry.line))
                continue
            }
            switch (entry.section, entry.key) {
            case ("device", "host"), ("device", "name"), ("device", "id"):
                if let previous = deviceEntry {
                    throw fail(entry, "only one of host, name and id may be set (\(previous.key) is set on line \(previous.line))")
                }
                deviceEntry = entry
                let value = try nonEmpty(entry)
                switch entry.key {
                case "host":
                    guard let parsed = GatewayConfiguration.parseHostPort(value) else {
                        throw fail(entry, "must be HOST or HOST:PORT (IPv6 as [ADDRESS]:PORT), port 1-65535; got '\(value)'")
                    }
                    device = .address(host: parsed.host, port: parsed.port)
                case "name": device = .name(value)
                default:
                    let normalized = value.lowercased().filter { $0 != "-" }
                    guard normalized.count == 32, normalized.allSatisfy(\.isHexDigit) else {
                        throw fail(entry, "must be the device's 32-hex-digit id (as in mDNS 'id='), got '\(value)'")
                    }
                    device = .id(normalized)
                }
            case ("cast", "app-id"):
                let value = try nonEmpty(entry)
                guard value.count <= 64, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) else {
                    throw fail(entry, "must be a receiver app id such as CC1AD845, got '\(value)'")
                }
                appID = value
            case ("cast", "android-receiver"): allowsAndroidReceiver = try bool(entry)
            case ("cast", "credentials"): credentialsValue = try nonEmpty(entry)
            case ("cast", "credentials-type"): credentialsType = try nonEmpty(entry)
            case ("log", "level"):
                guard let level = LogLevel(name: entry.value) else {
                    throw fail(entry, "must be one of \(LogLevel.allCases.map(\.name).joined(separator: ", ")), not '\(entry.value)'")
                }
                logLevel = level
            case ("lirc", "socket"): lircSocket = try nonEmpty(entry)
            case ("cec", "adapter"): cecAdapter = try nonEmpty(entry)
            case ("cec", "role"):
                guard let role = CECRole(rawValue: entry.value) else {
                    throw fail(entry, "must be playback, audio-system or monitor, not '\(entry.value)'")
                }
                cecRole = role
            case ("cec", "osd-name"):
                let value = try nonEmpty(entry)
                guard value.utf8.count <= 14, value.allSatisfy(\.isASCII) else {
                    throw fail(entry, "must be at most 14 ASCII characters (a CEC limit), got '\(value)'")
                }
                cecOSDName = value
            case ("cec", "power-on-when-casting"): tvPowerOnWhenCasting = try bool(entry)
            case ("cec", "tv-input"):
                let parts = entry.value.split(separator: ".").compactMap { UInt16($0, radix: 16) }
                guard parts.count == 4, parts.allSatisfy({ $0 <= 0xF }) else {
                    throw fail(entry, "must be an HDMI physical address such as 1.0.0.0, got '\(entry.value)'")
                }
                tvInput = parts.reduce(0) { $0 << 4 | $1 }
            case ("cec", "standby-after"):
                guard let minutes = Double(entry.value), minutes >= 0, minutes <= 24 * 60 else {
                    throw fail(entry, "must be minutes (0 = never), e.g. 30, got '\(entry.value)'")
                }
                tvStandbyAfter = minutes == 0 ? nil : .seconds(fractional: minutes * 60)
            case ("console", "device"): consoleDevice = try nonEmpty(entry)
            case ("console", "baud"):
                guard let baud = Int(entry.value), GatewayConfiguration.baudRates.contains(baud) else {
                    throw fail(entry, "must be one of \(GatewayConfiguration.baudRates.map(String.init).joined(separator: ", ")), not '\(entry.value)'")
                }
                consoleBaud = baud
            case ("leds", "power"), ("leds", "link"), ("leds", "play"), ("leds", "error"):
                let value = try nonEmpty(entry)
                guard LEDLineSpec(parsing: value) != nil else {
                    throw fail(entry, "must be a line name (GPIO17) or CHIPLABEL:OFFSET, optionally followed by 'active-low'; chip numbers (gpiochip0:17) move between boards and are not accepted")
                }
                leds[entry.key] = value
            case ("evdev", "device"): evdevDevice = try nonEmpty(entry)
            case ("evdev", "grab"): evdevGrab = try bool(entry)
            case ("presets", let key):
                guard key.count == 1, let number = Int(key) else {
                    throw fail(entry, "preset names are the digits 0 to 9")
                }
                let parts = entry.value.split(separator: "|", maxSplits: 1).map { $0.trimmingSpaces() }
                guard let url = parts.first, url.contains("://") else {
                    throw fail(entry, "must be 'URL' or 'URL | title', got '\(entry.value)'")
                }
                presets[number] = Preset(url: url, title: parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil)
            default:
                let keys = GatewayConfiguration.knownKeys[entry.section] ?? []
                throw fail(entry, "unknown key; keys in [\(entry.section)]: \(keys.joined(separator: ", "))")
            }
        }
        if let credentialsValue {
            credentials = LaunchCredentials(credentials: credentialsValue, credentialsType: credentialsType)
        } else if credentialsType != nil, let entry = file.entries.first(where: { $0.key == "credentials-type" }) {
            throw fail(entry, "is set but [cast] credentials is not")
        }
    }

    /// Why `key` is not a valid key name for `source` (`cec`, `lirc`, `evdev`), or nil.
    static func keyNameProblem(_ key: String, source: String) -> String? {
        switch source {
        case "cec":
            return RemoteKeyNames.cec.contains(key) ? nil
                : "unknown CEC key '\(key)'; use libcec's names such as PLAY, PAUSE, VOLUME_UP, NUMBER1, F2_RED"
        case "evdev":
            return RemoteKeyNames.linuxInput.contains(key) ? nil
                : "unknown input key '\(key)'; use Linux key names such as KEY_PLAY, KEY_VOLUMEUP, KEY_1"
        default:  // lirc: REMOTE:BUTTON or BUTTON (any remote)
            let parts = key.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let (remote, button) = parts.count == 2 ? (parts[0], parts[1]) : ("*", parts[0])
            guard !remote.isEmpty, !button.isEmpty, !button.contains(" ") else {
                return "LIRC keys are REMOTE:BUTTON or *:BUTTON, e.g. *:KEY_PLAY"
            }
            // A named custom remote defines its own buttons; `*` and devinput use Linux key names.
            if remote == "*" || remote.hasPrefix("devinput"), !RemoteKeyNames.linuxInput.contains(button) {
                return "unknown button '\(button)' for remote '\(remote)'; devinput buttons are Linux key names such as KEY_PLAY"
            }
            return nil
        }
    }

    static let knownKeys: [String: [String]] = [
        "device": ["host", "name", "id"],
        "cast": ["app-id", "android-receiver", "credentials", "credentials-type"],
        "log": ["level"],
        "lirc": ["socket"],
        "cec": ["adapter", "role", "osd-name", "power-on-when-casting", "tv-input", "standby-after"],
        "console": ["device", "baud"],
        "leds": ["power", "link", "play", "error"],
        "evdev": ["device", "grab"],
        "presets": ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
    ]

    static let knownSections: Set<String> = Set(knownKeys.keys).union(["keys.cec", "keys.lirc", "keys.evdev"])

    /// Parses `HOST`, `HOST:PORT`, `[IPV6]` or `[IPV6]:PORT` (default port 8009).
    public static func parseHostPort(_ text: String) -> (host: String, port: UInt16)? {
        var host = text
        var port: UInt16 = 8009
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = UInt16(rest.dropFirst()), value > 0 else { return nil }
                port = value
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard text.firstIndex(of: ":") == colon else { return isValidHost(text) ? (text, 8009) : nil }  // bare IPv6
            host = String(text[..<colon])
            guard let value = UInt16(text[text.index(after: colon)...]), value > 0 else { return nil }
            port = value
        }
        guard isValidHost(host) else { return nil }
        return (host, port)
    }

    /// An IPv4 or IPv6 literal (IPv6 may carry a `%zone`), or a DNS host name
    /// (letters, digits and hyphens in dot-separated labels of 1 to 63).
    public static func isValidHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253, host.allSatisfy(\.isASCII) else { return false }
        if host.contains(":") {
            let address = host.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)
            if address.count == 2, address[1].isEmpty || !address[1].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-" }) {
                return false
            }
            var storage = in6_addr()
            return inet_pton(AF_INET6, String(address[0]), &storage) == 1
        }
        if host.allSatisfy({ $0.isNumber || $0 == "." }) {
            var storage = in_addr()
            return inet_pton(AF_INET, host, &storage) == 1
        }
        let labels = (host.hasSuffix(".") ? String(host.dropLast()) : host).split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
        }
    }
}
