import CastProtocol
import GatewayModel
import JSON
import SystemSupport

/// Renders discovered devices as a table (console `devices`, `cast-gateway discover`).
public enum DeviceList {
    /// Columns: name, model, id, address, port, status, capabilities; `*` marks `current`.
    public static func table(_ devices: [CastDevice], current: String? = nil) -> [String] {
        guard !devices.isEmpty else { return ["no Cast devices found"] }
        let header = ["NAME", "MODEL", "ID", "ADDRESS", "PORT", "STATUS", "CAPABILITIES"]
        let rows = devices.map { device -> [String] in
            let marker = device.address == current ? "* " : "  "
            var status = device.busy ? "busy" : "idle"
            if let app = device.runningApp { status += " (\(app))" }
            var capabilities = device.capabilities.names
            if device.isGroup, !capabilities.contains("group") { capabilities.append("group") }
            return [marker + device.name, device.model, device.id, device.host, String(device.port), status,
                    capabilities.joined(separator: ",")]
        }
        let all = [["  " + header[0]] + header.dropFirst()] + rows
        let widths = (0..<header.count).map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text + String(repeating: " ", count: widths[column] - text.count)
            }.joined(separator: "  ")
        }
    }

    /// Rows the console shows at most: at 115200 baud 500 rows take 5 s, at 9600 a minute.
    public static let consoleRows = 20

    /// The console's view: the table when it is short; otherwise a count, the
    /// first `limit` rows (the current device always among them) and how many
    /// more, with the way to find one. `filter` keeps the devices whose name,
    /// model, id or address contains it (case-insensitive).
    public static func page(_ devices: [CastDevice], current: String? = nil, matching filter: String? = nil,
                            limit: Int = DeviceList.consoleRows) -> [String] {
        var shown = devices
        // The filter is echoed: typed bytes must not paint the terminal.
        let echoed = filter.map { $0.escapingControlCharacters(maximumLength: 64) } ?? ""
        if let filter {
            let needle = filter.lowercased()
            shown = devices.filter { device in
                [device.name, device.model, device.id, device.address].contains { $0.lowercased().contains(needle) }
            }
            guard !shown.isEmpty else {
                return ["no Cast device matches \"\(echoed)\" (\(devices.count) found)"]
            }
        }
        let count = filter == nil ? "\(devices.count) Cast devices" : "\(shown.count) of \(devices.count) Cast devices match \"\(echoed)\""
        guard shown.count > limit else {
            return (filter == nil ? [] : [count]) + table(shown, current: current)
        }
        var rows = Array(shown.prefix(max(limit, 1)))
        if let current, !rows.contains(where: { $0.address == current }),
           let device = shown.first(where: { $0.address == current }) {
            rows[rows.count - 1] = device
        }
        let more = shown.count - rows.count
        return ["\(count), showing \(rows.count)"] + table(rows, current: current)
            + ["... and \(more) more: 'devices TEXT' shows those whose name, model, id or address contains TEXT"]
    }

    /// One JSON object per device, for scripts.
    public static func json(_ devices: [CastDevice]) -> String {
        JSONValue.array(devices.map { device in
            var txt = JSONObject()
            for (key, value) in device.txt.sorted(by: { $0.key < $1.key }) { txt[key] = .string(value) }
            return [
                "name": .string(device.name), "model": .string(device.model), "id": .string(device.id),
                "host": .string(device.host), "port": .int(Int(device.port)), "busy": .bool(device.busy),
                "group": .bool(device.isGroup), "capabilities": .int(device.capabilities.rawValue), "txt": .object(txt),
            ]
        }).serialized
    }
}
