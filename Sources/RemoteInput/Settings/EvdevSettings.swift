import Configuration
import SystemSupport

/// `[evdev]`: a kernel input device to read keys from (kernel-decoded IR).
public struct EvdevSettings: SettingsSection {
    public static let sectionName = "evdev"
    /// A path, or `name:TEXT`; nil: no evdev input.
    public var device: String?
    /// Take the device exclusively (EVIOCGRAB).
    public var grab = false

    public init(device: String? = nil, grab: Bool = false) {
        self.device = device
        self.grab = grab
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        device = try section.string("device")
        grab = try section.bool("grab") ?? false
    }
}
