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
///      "version":"1.4.0","uptime":3600}
///
/// `services` holds the parts of the gateway that failed and are being
/// restarted, while that lasts (`{}` when every part runs). `tv` is null
/// without HDMI-CEC.
public enum FleetStateDocument {
    /// The state at `now` (seconds on the gateway's monotonic clock).
    public static func render(_ state: GatewayState, extras: FleetStatusExtras, now: Duration) -> JSONValue {
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
        ]
    }

    private static func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// Rounded to a tenth; non-finite values (never expected) become 0.
    private static func tenths(_ value: Double) -> Double {
        guard value.isFinite else { return 0 }
        return (value * 10).rounded() / 10
    }
}
