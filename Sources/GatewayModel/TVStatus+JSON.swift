import JSON

extension TVStatus {
    /// The TV as the console's JSON and the MQTT state show it, every member
    /// present (null when unknown):
    /// `{"power":"on","input":"2.0.0.0","hdmi":2,"chromecast":true,"vendor":"00e091","vendorName":"LG","name":"TV"}`.
    public var json: JSONValue {
        let input = connected ? activeSource : nil
        return [
            "power": .string(connected ? power.rawValue : TVPower.unknown.rawValue),
            "input": input.map { .string(physicalAddressText($0)) } ?? .null,
            "hdmi": input.flatMap { $0 == 0 ? nil : JSONValue.int(Int($0 >> 12)) } ?? .null,
            "chromecast": input.map { .bool(castInput == $0) } ?? .null,
            "vendor": vendorID.map { .string(TVStatus.vendorHex($0)) } ?? .null,
            "vendorName": vendorName.map(JSONValue.string) ?? .null,
            "name": osdName.map(JSONValue.string) ?? .null,
        ]
    }
}
