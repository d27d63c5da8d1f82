import CastProtocol
import GatewayModel

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
