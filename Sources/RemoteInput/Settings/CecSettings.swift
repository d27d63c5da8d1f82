import Configuration
import GatewayModel
import SystemSupport

/// `[cec]`: the HDMI-CEC adapter, the role on the bus, the TV power policy,
/// and what the gateway does when the TV changes by itself.
public struct CecSettings: SettingsSection {
    public static let sectionName = "cec"
    /// The adapter's port (`/dev/cec0`, a Pulse-Eight's com port); nil: the one detected.
    public var adapter: String?
    public var role = CecSource.Role.playback
    /// The name the TV shows (at most 14 ASCII characters).
    public var osdName = "Cast Gateway"
    public var tvPower = TVPowerPolicy.Settings()
    /// `on-tv-standby`, `on-input-away`, `on-input-back`, `on-tv-on`.
    public var reactions = TVReactions()

    public init(adapter: String? = nil, role: CecSource.Role = .playback, osdName: String = "Cast Gateway",
                tvPower: TVPowerPolicy.Settings = TVPowerPolicy.Settings(), reactions: TVReactions = TVReactions()) {
        self.adapter = adapter
        self.role = role
        self.osdName = osdName
        self.tvPower = tvPower
        self.reactions = reactions
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        adapter = try section.string("adapter")
        role = try section.value("role", expected: "playback, audio-system or monitor", CecSource.Role.init(rawValue:)) ?? .playback
        osdName = try section.value("osd-name", expected: "at most 14 ASCII characters (a CEC limit)") { text in
            !text.isEmpty && text.utf8.count <= 14 && text.allSatisfy(\.isASCII) ? text : nil
        } ?? "Cast Gateway"
        tvPower.powerOnWhenCasting = try section.bool("power-on-when-casting") ?? false
        tvPower.input = try section.value("tv-input", expected: "an HDMI physical address such as 1.0.0.0", parsePhysicalAddress)
        tvPower.standbyAfter = try section.value("standby-after", expected: "minutes (0 = never), e.g. 30") { text in
            guard let minutes = Double(text), minutes >= 0, minutes <= 24 * 60 else { return nil as Duration?? }
            return minutes == 0 ? .some(nil) : .some(.seconds(fractional: minutes * 60))
        } ?? nil
        reactions.onStandby = try CecSettings.choice(&section, "on-tv-standby") ?? .pause
        reactions.onInputAway = try CecSettings.choice(&section, "on-input-away") ?? .pause
        reactions.onInputBack = try CecSettings.choice(&section, "on-input-back") ?? .none
        reactions.onTVOn = try CecSettings.choice(&section, "on-tv-on") ?? .none
    }

    /// One of an enum's values, by name; a bad one names file, line, key and the choices.
    private static func choice<T: RawRepresentable & CaseIterable>(_ section: inout ConfigSection, _ key: String) throws(ConfigError) -> T?
        where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        let expected = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        return try section.value(key, expected: expected, T.init(rawValue:))
    }
}
