import JSON

extension UpdateReport {
    /// The report as the MQTT state shows it, every member present (null when
    /// unknown): `{"state":"failed","version":"2.1","running":"2.0","previous":null,"time":"2026-12-02T08:00:00Z"}`.
    public var json: JSONValue {
        [
            "state": .string(outcome.rawValue),
            "version": .string(version),
            "running": .string(running),
            "previous": previous.map(JSONValue.string) ?? .null,
            "time": time.map(JSONValue.string) ?? .null,
        ]
    }
}
