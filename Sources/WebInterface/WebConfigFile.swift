/// The config file the web page edits, and what the daemon lends the page
/// for it: check-config's own checks, and the live reload SIGHUP starts.
/// The web module knows neither the daemon's settings nor its reload.
public struct WebConfigFile: Sendable {
    public let path: String
    /// check-config's checks on a proposed content for `path`: nil when it
    /// is good, else the first problem (`FILE:LINE: [section] key: message`).
    public let check: @Sendable (String) -> String?
    /// Starts the live reload (as SIGHUP does) without waiting for it.
    public let reload: @Sendable () -> Void

    public init(path: String, check: @escaping @Sendable (String) -> String?, reload: @escaping @Sendable () -> Void) {
        self.path = path
        self.check = check
        self.reload = reload
    }

    /// Largest config file the page edits (a form field, percent-encoded, may be three times this).
    public static let maximumSize = 64 * 1024
}
