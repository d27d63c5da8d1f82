import GatewayModel

/// Maps a source's key names to actions: the built-in defaults, overridden
/// by the config's `[keys.cec]`, `[keys.lirc]` and `[keys.evdev]`.
///
/// LIRC bindings are `REMOTE:BUTTON`; `*:BUTTON` (or just `BUTTON`) matches
/// any remote, and an exact remote wins over `*`. Binding a key to `none`
/// disables it.
public struct Keymap: Sendable, Equatable {
    public private(set) var bindings: [String: Action]
    public let source: InputEvent.Source

    public init(source: InputEvent.Source, bindings: [String: Action]) {
        self.source = source
        self.bindings = bindings
    }

    /// The defaults for `source`, with `overrides` (config key → action) applied.
    public static func standard(for source: InputEvent.Source, overrides: [(key: String, action: Action)] = []) -> Keymap {
        var keymap = Keymap(source: source, bindings: source == .cec ? cecDefaults : linuxInputDefaults)
        for override in overrides {
            keymap.bindings[Keymap.normalize(override.key, for: source)] = override.action
        }
        return keymap
    }

    /// The action for `event`, or nil when the key is not mapped (or mapped to `none`).
    public func action(for event: InputEvent) -> Action? {
        var candidates: [String] = []
        if let remote = event.remote { candidates.append("\(remote):\(event.key)") }
        candidates.append(Keymap.normalize(event.key, for: source))
        for candidate in candidates {
            if let action = bindings[candidate] { return action == .none ? nil : action }
        }
        return nil
    }

    /// `*:KEY` and `KEY` are the same binding.
    static func normalize(_ key: String, for source: InputEvent.Source) -> String {
        source == .lirc && key.hasPrefix("*:") ? String(key.dropFirst(2)) : key
    }

    /// Defaults for remotes seen through the kernel's input layer (LIRC devinput, evdev).
    public static let linuxInputDefaults: [String: Action] = {
        var map: [String: Action] = [
            "KEY_PLAY": .play, "KEY_PLAYCD": .play, "KEY_PAUSE": .pause, "KEY_PAUSECD": .pause,
            "KEY_PLAYPAUSE": .toggle, "KEY_OK": .toggle, "KEY_SELECT": .toggle, "KEY_ENTER": .toggle,
            "KEY_STOP": .stop, "KEY_STOPCD": .stop, "KEY_NEXTSONG": .next, "KEY_NEXT": .next, "KEY_CHANNELUP": .next,
            "KEY_PREVIOUSSONG": .previous, "KEY_PREVIOUS": .previous, "KEY_CHANNELDOWN": .previous,
            "KEY_FASTFORWARD": .seekBy(30), "KEY_FORWARD": .seekBy(30), "KEY_RIGHT": .seekBy(10),
            "KEY_REWIND": .seekBy(-10), "KEY_LEFT": .seekBy(-10),
            "KEY_VOLUMEUP": .volumeUp(Action.defaultVolumeStep), "KEY_VOLUMEDOWN": .volumeDown(Action.defaultVolumeStep),
            "KEY_MUTE": .toggleMute, "KEY_SUBTITLE": .cycleSubtitles, "KEY_TEXT": .cycleSubtitles,
            "KEY_LANGUAGE": .cycleAudioTrack, "KEY_AUDIO": .cycleAudioTrack, "KEY_EXIT": .stopApp,
        ]
        for digit in 0...9 {
            map["KEY_\(digit)"] = .preset(digit)
            map["KEY_NUMERIC_\(digit)"] = .preset(digit)
        }
        return map
    }()

    /// Defaults for HDMI-CEC user-control codes (libcec names).
    public static let cecDefaults: [String: Action] = {
        var map: [String: Action] = [
            "PLAY": .play, "PLAY_FUNCTION": .play, "PAUSE": .pause, "PAUSE_PLAY_FUNCTION": .toggle, "SELECT": .toggle,
            "STOP": .stop, "STOP_FUNCTION": .stop, "FORWARD": .next, "CHANNEL_UP": .next, "BACKWARD": .previous,
            "CHANNEL_DOWN": .previous, "FAST_FORWARD": .seekBy(30), "RIGHT": .seekBy(10), "REWIND": .seekBy(-10),
            "LEFT": .seekBy(-10), "VOLUME_UP": .volumeUp(Action.defaultVolumeStep),
            "VOLUME_DOWN": .volumeDown(Action.defaultVolumeStep), "MUTE": .toggleMute, "MUTE_FUNCTION": .toggleMute,
            "SUB_PICTURE": .cycleSubtitles, "SOUND_SELECT": .cycleAudioTrack, "EXIT": .stopApp,
        ]
        for digit in 0...9 { map["NUMBER\(digit)"] = .preset(digit) }
        return map
    }()
}
