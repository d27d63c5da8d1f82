import CastProtocol
import GatewayModel
import JSON
import SystemSupport

/// Renders a `GatewayState` as the one-line summary pushed to consoles:
/// `* PLAYING "Big Buck Bunny" 01:23/09:56 vol 40%`.
public enum StatusLine {
    public static func render(_ state: GatewayState, now: Double) -> String {
        var parts: [String] = []
        switch state.link {
        case .noDevice:
            return "* NO DEVICE (set [device] host)"
        case .connecting:
            return "* CONNECTING \(state.deviceName)"
        case .searching(let query):
            var line = "* SEARCHING for \"\(query)\" on the network"
            if let problem = state.discoveryProblem { line += ": \(problem)" }
            return line
        case .reconnecting(let retryIn):
            var line = "* OFFLINE \(state.deviceName) (retry in \(Duration.seconds(fractional: retryIn).secondsText))"
            if let error = state.lastError { line += ": \(error.message)" }
            return line
        case .connected:
            break
        }
        switch (state.appName, state.player) {
        case (nil, _):
            parts.append("IDLE")
        case (let app?, .none):
            parts.append("READY \(app)")
        case (_, let player):
            parts.append(player.rawValue)
            if let title = state.title { parts.append("\"\(title)\"") }
            if let position = state.position(at: now) {
                let duration = state.duration.flatMap { $0 > 0 ? $0 : nil }
                parts.append(duration.map { "\(clock(position))/\(clock($0))" } ?? clock(position))
            }
        }
        if state.volume != nil {
            parts.append("vol \(state.volumePercent ?? 0)%" + (state.muted ? " muted" : ""))
        }
        if let error = state.lastError { parts.append("(last error: \(error.message))") }
        return "* " + parts.joined(separator: " ")
    }

    /// `mm:ss`, or `h:mm:ss` from an hour on. Never traps: the value is
    /// clamped to `CastLimits.positions` (NaN counts as 0).
    public static func clock(_ seconds: Double) -> String {
        let bounded = seconds.isNaN ? 0 : min(max(seconds, CastLimits.positions.lowerBound), CastLimits.positions.upperBound)
        let total = Int(bounded.rounded(.down))
        let hours = total / 3600, minutes = (total % 3600) / 60, secs = total % 60
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(two(minutes)):\(two(secs))"
    }
}

/// Decides which states are worth a line in the log or on the console:
/// a meaningful change (`StatusLine.summaryKey`) that also reads differently.
public struct StatusAnnouncer: Sendable {
    private var lastKey = ""
    private var lastLine = ""

    public init() {}

    /// The line to announce for `state`, or nil when nothing worth saying changed.
    public mutating func announcement(for state: GatewayState, now: Double) -> String? {
        // Each retry of an unreachable device passes through CONNECTING: while
        // it stays offline for the same reason, that says nothing new.
        if state.link == .connecting, lastKey.hasPrefix("reconnecting|") { return nil }
        let key = StatusLine.summaryKey(state)
        guard key != lastKey else { return nil }
        lastKey = key
        let line = StatusLine.render(state, now: now)
        guard line != lastLine else { return nil }
        lastLine = line
        return line
    }
}

extension StatusLine {
    /// The state as one JSON object (the console's json mode), position extrapolated to `now`.
    public static func json(_ state: GatewayState, now: Double) -> String {
        var object: JSONObject = ["type": "status", "link": .string(state.link.name), "device": .string(state.deviceName),
                                  "address": .string(state.deviceAddress), "player": .string(state.player.rawValue)]
        if let app = state.appName { object["app"] = .string(app) }
        if let appID = state.appID { object["appId"] = .string(appID) }
        if let title = state.title { object["title"] = .string(title) }
        if let position = state.position(at: now) { object["position"] = .number((position * 10).rounded() / 10) }
        if let duration = state.duration { object["duration"] = .number(duration) }
        if let volume = state.volumePercent { object["volume"] = .int(volume) }
        object["muted"] = .bool(state.muted)
        object["authentication"] = .string(state.authentication)
        if state.audioOnly { object["audioOnly"] = .bool(true) }
        if let error = state.lastError { object["error"] = ["code": .string(error.code), "message": .string(error.message)] }
        if let tv = state.tv { object["tv"] = tv.json }
        return JSONValue.object(object).serialized
    }

    /// What makes a status worth announcing: link, app, player, title, volume
    /// and error, but not the ticking position.
    public static func summaryKey(_ state: GatewayState) -> String {
        let link: String = switch state.link {
        case .noDevice: "none"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting: "reconnecting"
        case .searching(let query): "searching \(query)"
        }
        let volume = state.volumePercent.map(String.init) ?? "-"
        return [link, state.deviceAddress, state.discoveryProblem ?? "-", state.appID ?? "-", state.player.rawValue, state.title ?? "-", volume, "\(state.muted)",
                state.lastError?.message ?? "-", state.configProblem ?? "-", state.authenticationProblem ?? "-"].joined(separator: "|")
    }
}
