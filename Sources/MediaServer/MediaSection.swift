import Configuration
import SystemSupport

/// `[media]`: local files served to receivers over HTTP. Without the
/// section there is no server, and local paths are refused.
public struct MediaSection: SettingsSection {
    public static let sectionName = "media"
    /// nil: no `[media]` section, no server.
    public var server: MediaServerSettings?

    public init(server: MediaServerSettings? = nil) {
        self.server = server
    }

    /// Checks the roots and the origin against the file system now, so an
    /// installer sees a bad root at `check-config`, not at the first cast.
    public init(from section: inout ConfigSection) throws(ConfigError) {
        let rootsEntry = section.entry("roots")
        let port = try section.value("port", expected: "a TCP port (0 = any free port)") { UInt16($0) }
        let origin = try section.string("cors-origin")
        guard section.isPresent else { return }
        guard let rootsEntry else {
            throw ConfigError(file: section.path, line: section.headerLine, key: "[\(MediaSection.sectionName)] roots",
                              message: "is missing: name the directories to serve, e.g. roots = /srv/media")
        }
        let roots = rootsEntry.value.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        let settings = MediaServerSettings(roots: roots, port: port ?? MediaServerSettings.defaultPort, corsOrigin: origin ?? "*")
        do {
            _ = try settings.validated()
        } catch let error as MediaServerError where error.code == .badCORSOrigin {
            // Shown at the key that is wrong.
            throw section.error(section.entry("cors-origin") ?? rootsEntry, "\(error)")
        } catch {
            throw section.error(rootsEntry, "\(error)")
        }
        server = settings
    }
}
