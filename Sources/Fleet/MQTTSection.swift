import Configuration
import SystemSupport

/// `[mqtt]`: fleet control through a broker. Without the section the
/// gateway has no fleet client.
public struct MQTTSection: SettingsSection {
    public static let sectionName = "mqtt"
    /// nil: no `[mqtt]` section, no fleet client.
    public var fleet: FleetSettings?

    public init(fleet: FleetSettings? = nil) {
        self.fleet = fleet
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        try self.init(from: &section, hostname: section.isPresent ? FleetSettings.hostname() : nil)
    }

    /// `hostname`: the default room (tests give their own).
    public init(from section: inout ConfigSection, hostname: String?) throws(ConfigError) {
        guard section.isPresent else { return }
        fleet = try FleetSettings(from: &section, hostname: hostname)
    }
}
