import Fleet
import SystemSupport

/// `[mqtt]`: fleet control through a broker. Parsed by the Fleet module's own
/// parser (its key table is `FleetSettings.keys`); errors get the file and line here.
public struct MQTTSettings: SettingsSection {
    public static let sectionName = "mqtt"
    /// nil: no `[mqtt]` section, no fleet client.
    public var fleet: FleetSettings?

    public init(fleet: FleetSettings? = nil) {
        self.fleet = fleet
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        let entries = section.allEntries()
        guard section.isPresent else { return }
        do {
            fleet = try FleetSettings.parse(entries.map { (key: $0.key, value: $0.value) })
        } catch {
            if let entry = entries.first(where: { $0.key.lowercased() == error.key }) {
                throw section.error(entry, error.message)
            }
            throw ConfigError(file: section.path, line: section.headerLine, key: "[\(section.name)] \(error.key)", message: error.message)
        }
    }
}
