#if canImport(Glibc)
import Glibc
#endif
import GatewayModel
import JSON

/// The JSON published on `<prefix>/<room>/state`. Every member is always
/// present (null when unknown), so Home Assistant templates and scripts can
/// read them without guarding:
///
///     {"link":"connected","device":{"name":"Living Room TV","id":"4f1c…","address":"192.168.1.20:8009"},
///      "app":"Default Media Receiver","appId":"CC1AD845","player":"PLAYING","title":"Big Buck Bunny",
///      "position":83.2,"duration":596,"volume":40,"muted":false,"error":null,
///      "inputs":{"cec":"ok","lirc":"cannot connect to /run/lirc/lircd"},
///      "services":{"media":"media failed: ...; restarting"},
///      "tv":{"power":"on","input":"2.0.0.0","hdmi":2,"chromecast":true,"vendor":"00e091","vendorName":"LG","name":"TV"},
///      "version":"1.4.0","uptime":3600,
///      "activity":"Playing","selection":"Big Buck Bunny","positionUpdatedAt":"2026-12-02T08:00:00Z",
///      "problem":null,"problems":[],"tvInput":"HDMI 2 (the Chromecast)",
///      "update":{"state":"updated","version":"1.4.0","running":"1.4.0","previous":"1.3.2","time":"2026-12-01T03:00:00Z"},
///      "updateProgress":{"state":"downloading","percent":40,"version":"1.5.0","message":null,"time":"2026-12-02T08:00:00Z"}}
///
/// The last members are for Home Assistant: `activity` is the player in
/// words, `selection` the `Play` option playing (a preset's name, or a kiosk
/// item's `Playlist N: NAME`), `positionUpdatedAt`
/// when `position` was true (UTC), `problem` the first of `problems`
/// (everything wrong now, and the last failed MQTT command for a while).
///
/// `update` is null on a box without A/B updates or before its first one;
/// a failed update is also one of the `problems`. `updateProgress` is how an
/// update asked for from the fleet (`update URL`, Home Assistant's Install)
/// is going since the box booted: `state` is requested, downloading,
/// verifying, installing, installed or failed (also a problem); null when
/// none was asked for.
///
/// `services` holds the parts of the gateway that failed and are being
/// restarted, while that lasts (`{}` when every part runs). `tv` is null
/// without HDMI-CEC.
public enum FleetStateDocument {
    /// What the document shows besides the state and the extras.
    public struct Context: Sendable, Equatable {
        /// Seconds since the epoch at `now` (for `positionUpdatedAt`); nil: not known.
        public var wallTime: Double?
        public var presets: [HomeAssistantContext.Preset]
        /// The last MQTT command that failed, while it is still shown.
        public var commandFailure: String?

        public init(wallTime: Double? = nil, presets: [HomeAssistantContext.Preset] = [], commandFailure: String? = nil) {
            self.wallTime = wallTime
            self.presets = presets
            self.commandFailure = commandFailure
        }
    }

    /// The state at `now` (seconds on the gateway's monotonic clock).
    public static func render(_ state: GatewayState, extras: FleetStatusExtras, now: Duration,
                              context: Context = Context()) -> JSONValue {
        let deviceID = state.devices.first { $0.address == state.deviceAddress }?.id
        let device: JSONValue = ["name": .string(state.deviceName), "id": string(deviceID),
                                 "address": .string(state.deviceAddress)]
        var inputs = JSONObject()
        for source in extras.inputs { inputs[source] = .string(state.inputProblems[source] ?? "ok") }
        for (source, problem) in state.inputProblems.sorted(by: { $0.key < $1.key }) where inputs[source] == nil {
            inputs[source] = .string(problem)
        }
        var services = JSONObject()
        for (name, failure) in state.serviceFailures.sorted(by: { $0.key < $1.key }) { services[name] = .string(failure) }
        let position = state.position(at: now.seconds).map { JSONValue.number(tenths($0)) } ?? .null
        let volume = state.volumePercent.map(JSONValue.int) ?? .null
        let error: JSONValue = state.lastError.map { ["code": .string($0.code), "message": .string($0.message)] } ?? .null
        let uptime = max(0, (now - extras.startedAt).components.seconds)
        let problems = problems(state, commandFailure: context.commandFailure)
        return [
            "link": .string(state.link.name),
            "device": device,
            "app": string(state.appName),
            "appId": string(state.appID),
            "player": .string(state.player.rawValue),
            "title": string(state.title),
            "position": position,
            "duration": state.duration.map { .number(tenths($0)) } ?? .null,
            "volume": volume,
            "muted": .bool(state.muted),
            "error": error,
            "inputs": .object(inputs),
            "services": .object(services),
            "tv": state.tv?.json ?? .null,
            "version": .string(extras.version),
            "uptime": .number(Double(uptime)),
            "activity": .string(activity(state)),
            "selection": string(selection(state, presets: context.presets)),
            "positionUpdatedAt": state.position != nil ? string(context.wallTime.map(isoTime)) : .null,
            "problem": string(problems.first),
            "problems": .array(problems.map(JSONValue.string)),
            // The words `status` uses (`HDMI 2 (the Chromecast)`), for the input the TV shows.
            "tvInput": string(state.tv.flatMap { tv in tv.connected ? tv.activeSource.map(tv.inputText) : nil }),
            // What happened to the last A/B update (deploy/rauc/commit-slot's report).
            "update": state.update?.json ?? .null,
            // An update from the fleet under way (deploy/rauc/install-request's progress).
            "updateProgress": state.updateProgress?.json ?? .null,
        ]
    }

    /// The player in words.
    static func activity(_ state: GatewayState) -> String {
        guard state.link == .connected else { return "Not connected" }
        return switch state.player {
        case .playing: "Playing"
        case .paused: "Paused"
        case .buffering: "Buffering"
        case .idle: "Idle"
        case .none: "Nothing loaded"
        }
    }

    /// The `Play` option playing: the kiosk's item, or a preset (its URL is the content, or else its name the title).
    static func selection(_ state: GatewayState, presets: [HomeAssistantContext.Preset]) -> String? {
        let options = PlayOption.options(presets: presets, kioskItems: state.kioskItems?.names ?? [])
        return PlayOption.selected(in: options, state: state)?.name
    }

    /// Everything wrong now, most important first.
    static func problems(_ state: GatewayState, commandFailure: String?) -> [String] {
        var list: [String] = []
        switch state.link {
        case .reconnecting: list.append(state.lastError?.message ?? "the receiver \(state.deviceName) cannot be reached")
        case .searching(let name): list.append("the receiver \(name) is not on the network")
        case .noDevice: list.append("no receiver is set: set [device] host, name or id")
        case .connecting, .connected:
            if let error = state.lastError { list.append(error.message) }
        }
        if let problem = state.authenticationProblem { list.append(problem) }
        if let problem = state.configProblem { list.append(problem) }
        if let problem = state.kioskProblem { list.append(problem) }
        if let problem = state.update?.problem { list.append(problem) }
        if let problem = state.updateProgress?.problem { list.append(problem) }
        for (source, problem) in state.inputProblems.sorted(by: { $0.key < $1.key }) { list.append("\(source): \(problem)") }
        for (_, failure) in state.serviceFailures.sorted(by: { $0.key < $1.key }) { list.append(failure) }
        if let failure = commandFailure { list.append(failure) }
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }

    /// `2026-12-02T08:00:00Z` for seconds since the epoch.
    static func isoTime(_ seconds: Double) -> String {
        var time = time_t(seconds.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    private static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// Rounded to a tenth; non-finite values (never expected) become 0.
    private static func tenths(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        return (value * 10).rounded() / 10
    }
}
