import Configuration
import SystemSupport

/// `[discovery]`: how much of the network the gateway remembers. On a hotel
/// or campus LAN hundreds of Cast devices announce themselves; the table
/// keeps at most `maximumDevices`, dropping the least recently announced.
public struct DiscoverySettings: SettingsSection {
    public static let sectionName = "discovery"
    public static let defaultMaximumDevices = 1000
    /// The largest `max-devices` accepted: a typo must not switch the bound off.
    public static let maximumDevicesLimit = 100_000

    /// `max-devices`: the most devices the table holds (the followed device is always kept).
    public var maximumDevices = DiscoverySettings.defaultMaximumDevices

    public init(maximumDevices: Int = DiscoverySettings.defaultMaximumDevices) {
        self.maximumDevices = maximumDevices
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        maximumDevices = try section.value("max-devices", expected: "a number of devices from 1 to \(DiscoverySettings.maximumDevicesLimit)") { text in
            Int(text).flatMap { (1...DiscoverySettings.maximumDevicesLimit).contains($0) ? $0 : nil }
        } ?? DiscoverySettings.defaultMaximumDevices
    }
}
