import Configuration
import GatewayModel
import SystemSupport

/// `[cec]`: the HDMI-CEC adapter, the role on the bus, and the TV power policy.
public struct CecSettings: SettingsSection {
    public static let sectionName = "cec"
    /// The adapter's port (`/dev/cec0`, a Pulse-Eight's com port); nil: the one detected.
    public var adapter: String?
    public var role = CecSource.Role.playback
    /// The name the TV shows (at most 14 ASCII characters).
    public var osdName = "Cast Gateway"
    public var tvPower = TVPowerPolicy.Settings()

    public init(adapter: String? = nil, role: CecSource.Role = .playback, osdName: String = "Cast Gateway",
                tvPower: TVPowerPolicy.Settings = TVPowerPolicy.Settings()) {
        self.adapter = adapter
        self.role = role
        self.osdName = osdName
        self.tvPower = tvPower
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        adapter = try section.string("adapter")
        role = try section.value("role", expected: "playback, audio-system or monitor", CecSource.Role.init(rawValue:)) ?? .playback
        osdName = try section.value("osd-name", expected: "at most 14 ASCII characters (a CEC limit)") { text in
            !text.isEmpty && text.utf8.count <= 14 && text.allSatisfy(\.isASCII) ? text : nil
        } ?? "Cast Gateway"
        tvPower.powerOnWhenCasting = try section.bool("power-on-when-casting") ?? false
        tvPower.input = try section.value("tv-input", expected: "an HDMI physical address such as 1.0.0.0") { text in
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { UInt16($0, radix: 16) }
            guard parts.count == 4, parts.allSatisfy({ ($0 ?? 16) <= 0xF }) else { return nil }
            return parts.reduce(UInt16(0)) { $0 << 4 | ($1 ?? 0) }
        }
        tvPower.standbyAfter = try section.value("standby-after", expected: "minutes (0 = never), e.g. 30") { text in
            guard let minutes = Double(text), minutes >= 0, minutes <= 24 * 60 else { return nil as Duration?? }
            return minutes == 0 ? .some(nil) : .some(.seconds(fractional: minutes * 60))
        } ?? nil
    }
}
