import Configuration
import SystemSupport

/// `[presets]`: the media URLs started by `preset-0` … `preset-9` (the hotel "channels").
public struct PresetSettings: SettingsSection {
    public struct Preset: Sendable, Equatable {
        public var url: String
        public var title: String?

        public init(url: String, title: String? = nil) {
            self.url = url
            self.title = title
        }
    }

    public static let sectionName = "presets"
    public var presets: [Int: Preset] = [:]

    public init(_ presets: [Int: Preset] = [:]) {
        self.presets = presets
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        for number in 0...9 {
            guard let entry = section.entry(String(number)) else { continue }
            let parts = entry.value.split(separator: "|", maxSplits: 1).map { $0.trimmingSpaces() }
            guard let url = parts.first, url.contains("://") || url.hasPrefix("/") else {
                throw section.error(entry, "must be 'URL' or 'URL | title' (or a file under [media] roots), got '\(entry.value)'")
            }
            presets[number] = Preset(url: url, title: parts.count > 1 && !parts[1].isEmpty ? parts[1] : nil)
        }
        if let bad = section.entries.first(where: { Int($0.key) == nil || $0.key.count != 1 }) {
            throw section.error(bad, "preset names are the digits 0 to 9")
        }
    }
}
