import GatewayModel
import JSON

/// What `/api/state` answers: the state the status page shows, as JSON.
/// Texts are sent as they are (JSON-escaped); the page shows them with
/// `textContent`, never as HTML.
public enum WebStatusDocument {
    /// `now`: the gateway's monotonic seconds, for the extrapolated position.
    /// `inputs`: the remote inputs, with how each is set up and its last key.
    /// `software`: the release and the A/B update's progress (nil: none shown).
    public static func json(_ state: GatewayState, now: Double, inputs: [WebInput] = [], software: WebSoftware? = nil) -> JSONValue {
        var object = JSONObject()
        object["device"] = .string(state.deviceName)
        object["address"] = .string(state.deviceAddress)
        object["link"] = .string(linkText(state.link))
        object["app"] = state.appName.map(JSONValue.string) ?? .null
        object["player"] = .string(state.player.rawValue)
        object["title"] = state.title.map(JSONValue.string) ?? .null
        object["position"] = state.position(at: now).map { .number(($0 * 10).rounded() / 10) } ?? .null
        object["duration"] = state.duration.map(JSONValue.number) ?? .null
        object["volume"] = state.volumePercent.map { .number(Double($0)) } ?? .null
        object["muted"] = .bool(state.muted)
        object["tv"] = state.tv.map { .string($0.summary) } ?? .null
        object["problems"] = .array(problems(state).map(JSONValue.string))
        object["kiosk"] = state.kioskItems.map(kiosk) ?? .null
        object["inputs"] = .array(inputs.map { input(_: $0, problem: state.inputProblems[$0.name]) })
        object["devices"] = .array(state.devices.map { device(_: $0, current: state.deviceAddress) })
        object["software"] = software?.json(state) ?? .null
        return .object(object)
    }

    /// The kiosk's playlist (item names in order) and the index of the one it plays (null: none now).
    static func kiosk(_ items: KioskItems) -> JSONValue {
        var object = JSONObject()
        object["items"] = .array(items.names.map(JSONValue.string))
        object["playing"] = items.playing.map { .number(Double($0)) } ?? .null
        return .object(object)
    }

    /// An input: `state` is `off`, the problem the gateway reports, or `working` (set up, no problem reported).
    static func input(_ input: WebInput, problem: String?) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(input.name)
        object["setup"] = .string(input.setup ?? "off")
        object["state"] = .string(input.setup == nil ? "off" : problem ?? "working")
        object["lastKey"] = input.lastKey.map(JSONValue.string) ?? .null
        return .object(object)
    }

    /// A row of the discovery table; `current`: the gateway controls it now.
    static func device(_ device: CastDevice, current: String) -> JSONValue {
        var object = JSONObject()
        object["id"] = .string(device.id)
        object["name"] = .string(device.name)
        object["model"] = .string(device.model)
        object["address"] = .string(device.address)
        object["current"] = .bool(device.address == current)
        return .object(object)
    }

    static func linkText(_ link: GatewayState.Link) -> String {
        switch link {
        case .noDevice: "no device"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let seconds): "reconnecting in \(Int(seconds.rounded(.up))) s"
        case .searching(let name): "searching for \(name)"
        }
    }

    /// Every problem the state carries, one line each.
    static func problems(_ state: GatewayState) -> [String] {
        var lines: [String] = []
        if let error = state.lastError { lines.append("\(error.code): \(error.message)") }
        if let problem = state.configProblem { lines.append("config: \(problem)") }
        if let problem = state.discoveryProblem { lines.append("discovery: \(problem)") }
        if let problem = state.authenticationProblem { lines.append("authentication: \(problem)") }
        if let problem = state.kioskProblem { lines.append("kiosk: \(problem)") }
        for (name, problem) in state.inputProblems.sorted(by: { $0.key < $1.key }) { lines.append("\(name): \(problem)") }
        for (name, problem) in state.serviceProblems.sorted(by: { $0.key < $1.key }) { lines.append("\(name): \(problem)") }
        for (name, failure) in state.serviceFailures.sorted(by: { $0.key < $1.key }) { lines.append("\(name) failed: \(failure)") }
        return lines
    }
}
