import Configuration
import GatewayModel
import SystemSupport

/// `[keys.lirc]`, `[keys.evdev]`, `[keys.cec]`: one source's keymap
/// overrides, each key name checked against that source's names.
public struct KeymapSettings: Sendable, Equatable {
    /// One keymap line: an input's key name mapped to an action.
    public struct Binding: Sendable, Equatable {
        public var input: String
        public var action: Action
        public var line: Int

        public init(input: String, action: Action, line: Int = 0) {
            self.input = input
            self.action = action
            self.line = line
        }
    }

    public let source: InputEvent.Source
    public var bindings: [Binding] = []

    public init(source: InputEvent.Source, bindings: [Binding] = []) {
        self.source = source
        self.bindings = bindings
    }

    /// The section's name for a source: `keys.lirc`.
    public static func sectionName(for source: InputEvent.Source) -> String { "keys.\(source.rawValue)" }

    /// The sources that have keymaps.
    public static let sources: [InputEvent.Source] = [.cec, .lirc, .evdev]

    public init(source: InputEvent.Source, file: ConfigFile) throws(ConfigError) {
        self.source = source
        var section = file.section(KeymapSettings.sectionName(for: source))
        for entry in section.allEntries() {
            guard let action = Action(name: entry.value) else {
                throw section.error(entry, "unknown action '\(entry.value)'; actions: \(Action.nameForms.joined(separator: ", "))")
            }
            if let problem = KeymapSettings.keyNameProblem(entry.key, source: source) { throw section.error(entry, problem) }
            bindings.append(Binding(input: entry.key, action: action, line: entry.line))
        }
    }

    /// The source's standard keymap with these overrides.
    public var keymap: Keymap {
        Keymap.standard(for: source, overrides: bindings.map { (key: $0.input, action: $0.action) })
    }

    /// Why `key` is not a valid key name for `source`, or nil.
    static func keyNameProblem(_ key: String, source: InputEvent.Source) -> String? {
        switch source {
        case .cec:
            return RemoteKeyNames.cec.contains(key) ? nil
                : "unknown CEC key '\(key)'; use libcec's names such as PLAY, PAUSE, VOLUME_UP, NUMBER1, F2_RED, or VENDOR_XX for a vendor's key code XX (hex)"
        case .evdev:
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
}
