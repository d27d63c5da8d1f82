/// What the gateway knows about the TV, from the CEC bus: published in the
/// state (`status`, the console's JSON, MQTT). nil in the state: no CEC.
public struct TVStatus: Sendable, Equatable {
    public var power: TVPower = .unknown
    /// The physical address the TV shows (from <Active Source>, <Routing Change>, <Set Stream Path>).
    public var activeSource: UInt16?
    /// The Chromecast's input (`[cec] tv-input`), to name it.
    public var castInput: UInt16?
    /// The gateway's own adapter's physical address.
    public var ownAddress: UInt16?
    /// The TV's IEEE OUI (<Device Vendor ID>), e.g. 0x00E091 (LG).
    public var vendorID: UInt32?
    public var osdName: String?
    /// Whether the adapter is open (false: all of the above is unknown).
    public var connected = false

    public init() {}

    /// The vendor's name, when known to the gateway.
    public var vendorName: String? {
        guard let vendorID else { return nil }
        let names: [UInt32: String] = [
            0x0000F0: "Samsung", 0x00E091: "LG", 0x080046: "Sony", 0x00903E: "Philips", 0x008045: "Panasonic",
            0x000039: "Toshiba", 0x08001F: "Sharp", 0x6B746D: "Vizio", 0x000CE7: "Toshiba", 0x0009B0: "Onkyo",
            0x00A0DE: "Yamaha", 0x0005CD: "Denon", 0x001582: "Pulse-Eight", 0x009053: "Daewoo", 0x18C086: "Broadcom",
            0x00D0D5: "Grundig", 0x000678: "Marantz", 0x5CAD76: "TCL", 0x8065E9: "Benq", 0x000D4B: "Roku",
        ]
        return names[vendorID]
    }

    /// `LG (00e091)`, or only the id for a vendor the gateway does not name.
    public var vendorText: String? {
        guard let vendorID else { return nil }
        let hex = TVStatus.vendorHex(vendorID)
        return vendorName.map { "\($0) (\(hex))" } ?? hex
    }

    /// An OUI as six hex digits: `00e091`.
    public static func vendorHex(_ id: UInt32) -> String {
        let hex = String(id, radix: 16)
        return String(repeating: "0", count: max(0, 6 - hex.count)) + hex
    }

    /// `HDMI 2 (the Chromecast)`, `HDMI 1 (1.1.0.0)`, `the TV's own tuner`.
    public func inputText(_ address: UInt16) -> String {
        if address == 0 { return "its own tuner or apps" }
        let port = Int(address >> 12)
        var text = "HDMI \(port)"
        if address & 0x0FFF != 0 { text += " (\(physicalAddressText(address)))" }
        if address == castInput { text += " (the Chromecast)" } else if address == ownAddress { text += " (the gateway)" }
        return text
    }

    /// `on, showing HDMI 2 (the Chromecast)`, `standby`, `unknown (no CEC adapter)`.
    public var summary: String {
        guard connected else { return "unknown (the CEC adapter is not open)" }
        var text = power.rawValue
        if power != .standby, let activeSource { text += ", showing \(inputText(activeSource))" }
        var about: [String] = []
        if let osdName { about.append("\"\(osdName)\"") }
        if let vendor = vendorText { about.append("vendor \(vendor)") }
        if !about.isEmpty { text += "; " + about.joined(separator: ", ") }
        return text
    }
}

/// What the gateway does when the TV changes by itself (`[cec]` keys).
public struct TVReactions: Sendable, Equatable {
    public enum OnStandby: String, Sendable, CaseIterable { case pause, stop, none }
    public enum OnInputAway: String, Sendable, CaseIterable { case pause, none }
    public enum Resume: String, Sendable, CaseIterable { case none, play }

    /// `on-tv-standby`: the TV went to standby while the receiver plays.
    public var onStandby = OnStandby.pause
    /// `on-input-away`: the TV left the Chromecast's input (needs `tv-input`).
    public var onInputAway = OnInputAway.pause
    /// `on-input-back`: the TV came back to it (resumes only what the gateway paused).
    public var onInputBack = Resume.none
    /// `on-tv-on`: the TV came out of standby (resumes only what the gateway paused).
    public var onTVOn = Resume.none

    public init(onStandby: OnStandby = .pause, onInputAway: OnInputAway = .pause, onInputBack: Resume = .none, onTVOn: Resume = .none) {
        self.onStandby = onStandby
        self.onInputAway = onInputAway
        self.onInputBack = onInputBack
        self.onTVOn = onTVOn
    }
}
