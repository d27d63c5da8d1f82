import Kiosk

/// What `cast-gateway check-config` checks, for it and for the web page's
/// config editor: the file parses into settings, and with `[kiosk]` on, its
/// playlist loads (an installer sees the playlist's file and line now, not
/// at the first loop). Throws the first problem (file:line:key).
public enum ConfigCheck {
    /// The settings, and the playlist when the kiosk is on. `text`: a proposed
    /// content for `path` (not read then).
    public static func run(path: String, text: String? = nil, boardOverride: String? = nil) throws -> (DaemonSettings, Playlist?) {
        let settings = try DaemonSettings.load(path: path, text: text, boardOverride: boardOverride)
        guard settings.kiosk.isEnabled else { return (settings, nil) }
        return (settings, try Playlist.load(settings.kiosk.source))
    }
}
