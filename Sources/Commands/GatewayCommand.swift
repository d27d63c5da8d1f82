import GatewayModel
import SystemSupport

/// One command, whichever front end it came from: the serial console and
/// `cast-gateway demo` parse their text lines into it, MQTT the `command`
/// of its payload (and, later, the web interface its request). Each is then
/// carried out the same way (`CommandInterpreter`, module Interpreter) and answered
/// with a `CommandResult`, which each front end renders in its own form.
public enum GatewayCommand: Sendable, Equatable {
    case help
    case status
    case version
    /// The device table, or only the devices whose name, model, id or address contains the text.
    case devices(matching: String?)
    case use(String)
    case keys
    case json(Bool)
    case action(Action)
    case subtitleTrack(Int)
    case cast(url: String, title: String?)
    case queue(url: String)
    case launch(appID: String, androidReceiver: Bool)
    /// nil clears them.
    case credentials(String?)
    case logLevel(LogLevel)
    /// Presses a remote key by name (`KEY_PLAY`, or a CEC name like `PLAY`).
    case key(String)
    /// Front-desk reset of the kiosk (stop the guest's app, forget typed credentials, volume, loop from item 1).
    case checkout
    case playlist(PlaylistRequest)
    /// A/B updates: show how they stand, or install a bundle.
    case update(UpdateCommand)
    case quit

    /// `update`, `update latest`, `update URL [SHA256]`.
    public enum UpdateCommand: Sendable, Equatable {
        /// The installed version, an update under way, the last one's outcome, the fleet's offer.
        case show
        /// The bundle the fleet announces (`<prefix>/all/update`): Home Assistant's Install.
        case latest
        case install(UpdateRequest)
    }

    /// `playlist`, `playlist reload`, ...: the kiosk loop.
    public enum PlaylistRequest: Sendable, Equatable {
        case show, reload, start, stop, next, previous
        /// `playlist play N`: item N (from 1) of the playlist, now.
        case play(Int)
    }

    /// Where commands are typed: the help differs a little.
    public enum Context: Sendable {
        case console
        case demo
    }

    /// What each command does, for `help` in `context`.
    public static func helpText(for context: Context) -> String {
        switch context {
        case .console: commonHelp + "\n" + """
            json on | off          one JSON object per line, for scripts
            version | help
            """
        case .demo: commonHelp + "\n" + """
            version | help | quit
            """
        }
    }

    static let commonHelp = """
        status                 what is playing, volume, link state
        play | pause | toggle | stop | next | prev
        seek +S | -S | S | mm:ss   relative or absolute seek
        vol N | +N | -N        volume 0-100, or step up/down
        mute [on | off]        toggle mute, or set it
        subs next | off | N    cycle subtitles, turn them off, or pick track N
        cast URL [TITLE]       play a URL (or a file under [media] roots) now
        queue URL              add a URL to the queue
        launch APPID [--android]   launch a receiver app (allow Android TV receivers)
        creds STRING | clear   launch credentials for later launches (never shown)
        devices [TEXT]         list devices (those matching TEXT; needs mDNS discovery)
        use NAME               control the device with this name or id
        keys                   recent remote keys and their actions
        key NAME               press a remote key (KEY_PLAYPAUSE, KEY_VOLUMEUP, or CEC names like PLAY)
        log LEVEL              error, warning, notice, info, debug, trace
        preset N               play preset N (0-9) from [presets]
        playlist               kiosk loop: the current item and position
        playlist reload | start | stop | next | prev   re-read the playlist file, start or stop the loop, skip
        playlist play N        play item N of the playlist now
        tv on | standby | input N   HDMI-CEC: wake the TV, put it in standby, show HDMI input N
        checkout               front desk: stop the guest's app, clear typed creds, reset volume, loop from item 1
        update                 the installed version and how the last A/B update went
        update URL [SHA256]    install the signed bundle at this http(s) URL (A/B images), then reboot into it
        update latest          install the bundle the fleet announces
        """

    /// Whether the command only shows something (allowed on a status-only console).
    public var isReadOnly: Bool {
        switch self {
        case .help, .status, .version, .devices, .keys, .json, .quit: true
        case .playlist(.show): true  // the kiosk's item and position; the other playlist commands change it
        case .update(.show): true
        default: false
        }
    }

    /// Whether it needs the Cast link: MQTT holds such a command (in order)
    /// while the receiver is away, instead of failing it at once.
    public var needsReceiver: Bool {
        switch self {
        case .action(let action):
            switch action {
            case .selectNextDevice, .tvPowerOn, .tvStandby, .tvSelectInput, .none: false
            default: true
            }
        case .subtitleTrack, .cast, .queue, .launch, .key, .checkout: true
        case .playlist(let request):
            switch request {
            case .start, .next, .previous, .play: true
            case .show, .reload, .stop: false
            }
        case .help, .status, .version, .devices, .use, .keys, .json, .credentials, .logLevel, .update, .quit: false
        }
    }

    /// Parses one line. Errors explain the expected form.
    public init(parsing line: String) throws(UsageError) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let name = words.first?.lowercased() else { throw UsageError("empty command") }
        let arguments = Array(words.dropFirst())
        func noArguments(_ command: GatewayCommand) throws(UsageError) -> GatewayCommand {
            guard arguments.isEmpty else { throw UsageError("'\(name)' takes no arguments") }
            return command
        }
        switch name {
        case "help", "?": self = try noArguments(.help)
        case "status": self = try noArguments(.status)
        case "version": self = try noArguments(.version)
        case "devices": self = .devices(matching: arguments.isEmpty ? nil : arguments.joined(separator: " "))
        case "keys": self = try noArguments(.keys)
        case "quit", "exit": self = try noArguments(.quit)
        case "play": self = try noArguments(.action(.play))
        case "pause": self = try noArguments(.action(.pause))
        case "toggle": self = try noArguments(.action(.toggle))
        case "stop": self = try noArguments(.action(.stop))
        case "next": self = try noArguments(.action(.next))
        case "prev", "previous": self = try noArguments(.action(.previous))
        case "mute":
            switch arguments {
            case []: self = .action(.toggleMute)
            case ["on"]: self = .action(.setMuted(true))
            case ["off"]: self = .action(.setMuted(false))
            default: throw UsageError("usage: mute [on|off]")
            }
        case "use":
            guard !arguments.isEmpty else { throw UsageError("usage: use NAME|ID") }
            self = .use(arguments.joined(separator: " "))
        case "seek":
            guard arguments.count == 1, let action = GatewayCommand.parseSeek(arguments[0]) else {
                throw UsageError("usage: seek +SECONDS | -SECONDS | SECONDS | mm:ss")
            }
            self = .action(action)
        case "vol", "volume":
            guard arguments.count == 1, let action = GatewayCommand.parseVolume(arguments[0]) else {
                throw UsageError("usage: vol 0-100 | +N | -N")
            }
            self = .action(action)
        case "subs", "subtitles":
            guard arguments.count == 1 else { throw UsageError("usage: subs next | off | TRACK-NUMBER") }
            switch arguments[0].lowercased() {
            case "next": self = .action(.cycleSubtitles)
            case "off": self = .action(.subtitlesOff)
            default:
                guard let track = Int(arguments[0]), track >= 0 else { throw UsageError("usage: subs next | off | TRACK-NUMBER") }
                self = .subtitleTrack(track)
            }
        case "cast":
            guard let url = arguments.first, url.contains("://") || url.hasPrefix("/") else {
                throw UsageError("usage: cast URL|/LOCAL/FILE [TITLE]")
            }
            self = .cast(url: url, title: arguments.count > 1 ? arguments.dropFirst().joined(separator: " ") : nil)
        case "queue":
            guard arguments.count == 1, arguments[0].contains("://") || arguments[0].hasPrefix("/") else {
                throw UsageError("usage: queue URL|/LOCAL/FILE")
            }
            self = .queue(url: arguments[0])
        case "launch":
            let android = arguments.contains("--android")
            let rest = arguments.filter { $0 != "--android" }
            guard rest.count == 1, !rest[0].hasPrefix("-") else { throw UsageError("usage: launch APPID [--android]") }
            self = .launch(appID: rest[0], androidReceiver: android)
        case "creds", "credentials":
            guard !arguments.isEmpty else { throw UsageError("usage: creds STRING | clear") }
            self = arguments == ["clear"] ? .credentials(nil) : .credentials(arguments.joined(separator: " "))
        case "log":
            guard arguments.count == 1, let level = LogLevel(name: arguments[0]) else {
                throw UsageError("usage: log error|warning|notice|info|debug|trace")
            }
            self = .logLevel(level)
        case "preset":
            guard arguments.count == 1, arguments[0].count == 1, let number = Int(arguments[0]) else {
                throw UsageError("usage: preset 0-9")
            }
            self = .action(.preset(number))
        case "key":
            guard arguments.count == 1 else { throw UsageError("usage: key NAME (e.g. key KEY_PLAYPAUSE)") }
            self = .key(arguments[0].uppercased())
        case "checkout": self = try noArguments(.checkout)
        case "tv":
            switch arguments.map({ $0.lowercased() }) {
            case ["on"]: self = .action(.tvPowerOn)
            case ["standby"], ["off"]: self = .action(.tvStandby)
            case let words where words.count == 2 && words[0] == "input":
                guard let address = Action.tvInput(words[1]) else {
                    throw UsageError("usage: tv input N (HDMI 1-15) or tv input A.B.C.D (a physical address)")
                }
                self = .action(.tvSelectInput(address))
            default: throw UsageError("usage: tv on | tv standby | tv input N")
            }
        case "playlist":
            switch arguments.map({ $0.lowercased() }) {
            case []: self = .playlist(.show)
            case ["reload"]: self = .playlist(.reload)
            case ["start"]: self = .playlist(.start)
            case ["stop"]: self = .playlist(.stop)
            case ["next"]: self = .playlist(.next)
            case ["prev"], ["previous"]: self = .playlist(.previous)
            case let words where words.first == "play":
                guard words.count == 2, let item = Int(words[1]), item >= 1 else {
                    throw UsageError("usage: playlist play N, N an item number from 1 (see 'playlist')")
                }
                self = .playlist(.play(item))
            default: throw UsageError("usage: playlist [reload | start | stop | next | prev | play N]")
            }
        case "update":
            self = .update(try GatewayCommand.parseUpdate(arguments))
        case "json":
            guard arguments.count == 1, ["on", "off"].contains(arguments[0]) else { throw UsageError("usage: json on|off") }
            self = .json(arguments[0] == "on")
        default:
            throw UsageError("unknown command '\(name)' (try 'help')")
        }
    }

    static let updateUsage = "usage: update | update latest | update http(s)://HOST/BUNDLE.raucb [SHA256]"

    /// `update`'s arguments: none, `latest`, or a URL and an optional SHA-256.
    static func parseUpdate(_ arguments: [String]) throws(UsageError) -> UpdateCommand {
        switch arguments.count {
        case 0: return .show
        case 1 where arguments[0].lowercased() == "latest": return .latest
        case 1, 2:
            do {
                return .install(try UpdateRequest(url: arguments[0], sha256: arguments.count == 2 ? arguments[1] : nil))
            } catch {
                throw UsageError("update refused: \(error); \(updateUsage)")
            }
        default: throw UsageError(updateUsage)
        }
    }

    /// `+30`, `-10`, `90`, `1:23`, `1:02:03`.
    public static func parseSeek(_ text: String) -> Action? {
        if text.hasPrefix("+") || text.hasPrefix("-") {
            guard let seconds = Double(text.dropFirst()), seconds.isFinite, seconds >= 0, seconds <= Action.seekLimit else { return nil }
            return .seekBy(text.hasPrefix("-") ? -seconds : seconds)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (index, part) in parts.enumerated() {
            guard let value = Double(part), value.isFinite, value >= 0 else { return nil }
            if index > 0, value >= 60 { return nil }
            total = total * 60 + value
        }
        return total <= Action.seekLimit ? .seekTo(total) : nil
    }

    /// `40` (absolute percent), `+5`, `-5` (steps in percent).
    public static func parseVolume(_ text: String) -> Action? {
        if text.hasPrefix("+") || text.hasPrefix("-") {
            guard let step = Double(text.dropFirst()), step > 0, step <= 100 else { return nil }
            return text.hasPrefix("+") ? .volumeUp(step / 100) : .volumeDown(step / 100)
        }
        guard let level = Double(text), level >= 0, level <= 100 else { return nil }
        return .setVolume(level / 100)
    }
}
