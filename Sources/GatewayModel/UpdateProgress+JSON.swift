import JSON

extension UpdateProgress {
    /// As the MQTT state shows it, every member present:
    /// `{"state":"downloading","percent":40,"version":"2.1","message":null,"time":"2026-12-02T08:00:00Z"}`.
    public var json: JSONValue {
        [
            "state": .string(phase.rawValue),
            "percent": percent.map(JSONValue.int) ?? .null,
            "version": version.map(JSONValue.string) ?? .null,
            "message": message.map(JSONValue.string) ?? .null,
            "time": time.map(JSONValue.string) ?? .null,
        ]
    }
}
