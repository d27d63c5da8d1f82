import Configuration
import GatewayCore
import SystemSupport

/// `[kiosk]`: the box's own loop for a lobby screen, shop window or hotel
/// room, and how it hands the screen to guests and back.
public struct KioskSettings: SettingsSection {
    public static let sectionName = "kiosk"

    /// Where the loop's items come from.
    public enum Source: Sendable, Equatable {
        /// No playlist: only the welcome app (`app-id`), or nothing.
        case none
        /// An M3U / extended M3U file, or a plain list of URLs and paths.
        case playlist(String)
        /// The media files of a directory, in name order.
        case directory(String)
    }

    /// When the loop starts.
    public enum Start: String, Sendable, Equatable {
        /// At boot (resuming the saved item and position) and after checkout.
        case boot
        /// At the first play key of a remote (or `playlist start`).
        case key
        /// Only by `playlist start` (console or MQTT).
        case never
    }

    public var source = Source.none
    public var loop = true
    public var shuffle = false
    /// Seconds each JPEG/PNG slide shows, unless the playlist says otherwise.
    public var imageDuration = 10.0
    public var start = Start.boot
    public var schedule = Schedule()
    /// Minutes with nothing playing after which a guest's session is over (0: only when the guest's app stops).
    public var guestIdleMinutes = 15.0
    /// The volume (percent) that checkout restores.
    public var volume = 30
    /// A custom receiver (a welcome screen), shown between rounds of the playlist, or instead of it.
    public var appID: String?
    /// Seconds the welcome app shows between rounds (with a playlist).
    public var appDuration = 30.0
    /// Where the current item and position are saved.
    public var stateDirectory = "/var/lib/cast-gateway"
    /// Whether the file has a `[kiosk]` section at all.
    public var isEnabled = false

    public init() {}

    public init(from section: inout ConfigSection) throws(ConfigError) {
        isEnabled = section.isPresent
        let directory = KioskSettings.directory(of: section.path)
        let playlist = try section.string("playlist").map { KioskSettings.resolve($0, against: directory) }
        let media = try section.string("media").map { KioskSettings.resolve($0, against: directory) }
        loop = try section.bool("loop") ?? true
        shuffle = try section.bool("shuffle") ?? false
        imageDuration = try section.value("image-duration", expected: "seconds from 1 to 86400", KioskSettings.seconds) ?? 10
        start = try section.value("start", expected: "boot, key or never", Start.init(rawValue:)) ?? .boot
        if let entry = section.entry("schedule") {
            switch Schedule.parse(entry.value) {
            case .success(let parsed): schedule = parsed
            case .failure(let error): throw section.error(entry, error.message)
            }
        }
        guestIdleMinutes = try section.value("guest-idle", expected: "minutes from 0 to 1440 (0: only when the guest's app stops)") { text in
            Double(text).flatMap { $0.isFinite && $0 >= 0 && $0 <= 1440 ? $0 : nil }
        } ?? 15
        volume = try section.value("volume", expected: "a percentage from 0 to 100") { text in
            Int(text).flatMap { (0...100).contains($0) ? $0 : nil }
        } ?? 30
        appID = try section.value("app-id", expected: "a receiver app id such as 1A2B3C4D", CastSettings.validAppID)
        appDuration = try section.value("app-duration", expected: "seconds from 1 to 86400", KioskSettings.seconds) ?? 30
        if let entry = section.entry("state-directory") {
            guard entry.value.hasPrefix("/") else { throw section.error(entry, "must be an absolute directory path") }
            stateDirectory = entry.value
        }
        if let playlist, media != nil {
            let entry = section.entry("media")
            throw entry.map { section.error($0, "give either playlist or media, not both (playlist = \(playlist))") }
                ?? ConfigError(file: section.path, line: nil, key: "[kiosk]", message: "give either playlist or media, not both")
        }
        source = playlist.map(Source.playlist) ?? media.map(Source.directory) ?? .none
        if isEnabled, source == .none, appID == nil {
            throw ConfigError(file: section.path, line: section.headerLine, key: "[kiosk]",
                              message: "needs playlist = FILE, media = DIR or app-id = APPID (what the kiosk shows)")
        }
    }

    /// The path of the state file.
    public var statePath: String { stateDirectory + (stateDirectory.hasSuffix("/") ? "" : "/") + "kiosk-state.json" }

    static func seconds(_ text: String) -> Double? {
        guard let value = Double(text), value.isFinite, value >= 1, value <= 86_400 else { return nil }
        return value
    }

    /// A path relative to the config file's directory, as installers write it next to the config.
    static func resolve(_ path: String, against directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
