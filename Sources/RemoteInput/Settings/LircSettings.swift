import Configuration
import SystemSupport

/// `[lirc]`: where lircd's socket is.
public struct LircSettings: SettingsSection {
    public static let sectionName = "lirc"
    /// nil: `LIRC_SOCKET_PATH`, else lirc's default.
    public var socket: String?

    public init(socket: String? = nil) {
        self.socket = socket
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        socket = try section.string("socket")
    }
}
