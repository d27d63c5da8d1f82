/// Everything a remote key, a console command or a script can ask the
/// gateway to do. A closed set: keymaps name these and nothing else.
public enum Action: Sendable, Equatable, Hashable {
    case play
    case pause
    /// Pause when playing, play when paused (decided from the latest status).
    case toggle
    case stop
    case next
    case previous
    /// Seek by this many seconds (negative: back).
    case seekBy(Double)
    case seekTo(Double)
    /// Change the device volume by this step (0...1 scale, e.g. 0.05).
    case volumeUp(Double)
    case volumeDown(Double)
    /// Set the device volume (0...1).
    case setVolume(Double)
    case toggleMute
    /// Mute (true) or unmute (false), whatever the current state.
    case setMuted(Bool)
    case cycleSubtitles
    case subtitlesOff
    case cycleAudioTrack
    case setPlaybackRate(Double)
    /// Launch the configured receiver app.
    case launchApp
    case stopApp
    /// Start preset 0-9 from the config's `[presets]`.
    case preset(Int)
    case selectNextDevice
    case tvPowerOn
    case tvStandby
    /// Switch the TV to the input with this physical address (0x2000 = HDMI 2).
    case tvSelectInput(UInt16)
    case none

    /// Default step for volume keys.
    public static let defaultVolumeStep = 0.05
    /// Default step for seek keys, in seconds.
    public static let defaultSeekStep = 30.0
    /// The largest seek target or step accepted from a keymap, the console or
    /// the CLI (a year): larger numbers are typing mistakes or attacks.
    public static let seekLimit = 31_536_000.0

    /// The action's name in keymaps and logs, e.g. `seek+30`, `volume-up`, `preset-3`.
    public var name: String {
        switch self {
        case .play: "play"
        case .pause: "pause"
        case .toggle: "toggle"
        case .stop: "stop"
        case .next: "next"
        case .previous: "previous"
        case .seekBy(let seconds): seconds >= 0 ? "seek+\(Action.format(seconds))" : "seek-\(Action.format(-seconds))"
        case .seekTo(let seconds): "seek=\(Action.format(seconds))"
        case .volumeUp(let step): step == Action.defaultVolumeStep ? "volume-up" : "volume-up:\(Action.format(step * 100))"
        case .volumeDown(let step): step == Action.defaultVolumeStep ? "volume-down" : "volume-down:\(Action.format(step * 100))"
        case .setVolume(let level): "volume=\(Action.format(level * 100))"
        case .toggleMute: "mute"
        case .setMuted(let muted): muted ? "mute-on" : "mute-off"
        case .cycleSubtitles: "subtitles"
        case .subtitlesOff: "subtitles-off"
        case .cycleAudioTrack: "audio-track"
        case .setPlaybackRate(let rate): "rate=\(Action.format(rate))"
        case .launchApp: "launch-app"
        case .stopApp: "stop-app"
        case .preset(let number): "preset-\(number)"
        case .selectNextDevice: "next-device"
        case .tvPowerOn: "tv-on"
        case .tvStandby: "tv-standby"
        case .tvSelectInput(let address): address & 0x0FFF == 0 ? "tv-input=\(address >> 12)" : "tv-input=\(physicalAddressText(address))"
        case .none: "none"
        }
    }

    /// Parses a name as produced by `name` (`seek+30`, `volume-up:10`, `preset-3`, ...).
    public init?(name: String) {
        let simple: [String: Action] = [
            "play": .play, "pause": .pause, "toggle": .toggle, "play-pause": .toggle, "stop": .stop,
            "next": .next, "previous": .previous, "prev": .previous,
            "volume-up": .volumeUp(Action.defaultVolumeStep), "volume-down": .volumeDown(Action.defaultVolumeStep),
            "mute": .toggleMute, "mute-on": .setMuted(true), "mute-off": .setMuted(false), "subtitles": .cycleSubtitles, "subtitles-off": .subtitlesOff,
            "audio-track": .cycleAudioTrack, "launch-app": .launchApp, "stop-app": .stopApp,
            "next-device": .selectNextDevice, "tv-on": .tvPowerOn, "tv-standby": .tvStandby, "none": .none,
        ]
        if let action = simple[name] {
            self = action
            return
        }
        if name.hasPrefix("tv-input=") {
            guard let address = Action.tvInput(String(name.dropFirst("tv-input=".count))) else { return nil }
            self = .tvSelectInput(address)
            return
        }
        func number(after prefix: String) -> Double? {
            guard name.hasPrefix(prefix), let value = Double(name.dropFirst(prefix.count)), value.isFinite,
                  abs(value) <= Action.seekLimit else { return nil }
            return value
        }
        if let seconds = number(after: "seek+"), seconds > 0 { self = .seekBy(seconds) }
        else if let seconds = number(after: "seek-"), seconds > 0 { self = .seekBy(-seconds) }
        else if let seconds = number(after: "seek="), seconds >= 0 { self = .seekTo(seconds) }
        else if let percent = number(after: "volume-up:"), percent > 0, percent <= 100 { self = .volumeUp(percent / 100) }
        else if let percent = number(after: "volume-down:"), percent > 0, percent <= 100 { self = .volumeDown(percent / 100) }
        else if let percent = number(after: "volume="), percent >= 0, percent <= 100 { self = .setVolume(percent / 100) }
        else if let rate = number(after: "rate="), rate >= 0.5, rate <= 2 { self = .setPlaybackRate(rate) }
        else if let preset = number(after: "preset-"), preset >= 0, preset <= 9, preset.rounded() == preset { self = .preset(Int(preset)) }
        else { return nil }
    }

    /// Every form of action name, for help texts and error messages.
    public static let nameForms = [
        "play", "pause", "toggle", "stop", "next", "previous", "seek+N", "seek-N", "seek=N", "volume-up[:PERCENT]",
        "volume-down[:PERCENT]", "volume=PERCENT", "mute", "mute-on", "mute-off", "subtitles", "subtitles-off", "audio-track", "rate=R",
        "launch-app", "stop-app", "preset-0..9", "next-device", "tv-on", "tv-standby", "tv-input=N", "none",
    ]

    /// An HDMI input as typed: its number (`2`: 2.0.0.0) or a physical address (`2.1.0.0`).
    public static func tvInput(_ text: String) -> UInt16? {
        if let port = UInt16(text), (1...15).contains(port) { return port << 12 }
        guard let address = parsePhysicalAddress(text), address != 0, address != 0xFFFF else { return nil }
        return address
    }

    /// `30`, `2.5`, `1e+300`: never traps, whatever the value.
    private static func format(_ value: Double) -> String {
        let text = String(value)
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
