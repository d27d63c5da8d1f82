import Configuration
import SystemSupport

/// `[update]`: A/B updates asked for from the fleet (`update URL [SHA256]`,
/// Home Assistant's Install). The gateway runs unprivileged, so it only
/// writes a request file; a root service (deploy/rauc/install-request, run
/// by cast-gateway-update.path) downloads, checks and installs the bundle
/// and writes its progress, which the gateway shows.
public struct UpdateSettings: SettingsSection {
    public static let sectionName = "update"

    public enum Mode: String, Sendable, Equatable {
        /// On where the image is an A/B image (RAUC's system.conf exists).
        case auto
        case on = "yes"
        case off = "no"
    }

    public static let raucConfig = "/etc/rauc/system.conf"
    public static let defaultRequest = "/var/lib/cast-gateway/update-request"
    public static let defaultProgress = "/run/cast-gateway-update/progress"

    /// `from-fleet = auto | yes | no`.
    public var mode = Mode.auto
    /// Where the request goes (the gateway's state directory: it may write only there).
    public var request = UpdateSettings.defaultRequest
    /// Where the root helper writes its progress (a root-owned directory the gateway reads).
    public var progress = UpdateSettings.defaultProgress

    public init(mode: Mode = .auto, request: String = UpdateSettings.defaultRequest,
                progress: String = UpdateSettings.defaultProgress) {
        self.mode = mode
        self.request = request
        self.progress = progress
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        mode = try section.value("from-fleet", expected: "auto, yes or no") { text in
            switch text.lowercased() {
            case "auto": .auto
            case "yes", "true", "on": .on
            case "no", "false", "off": .off
            default: nil
            }
        } ?? .auto
        let absolute: (String) -> String? = { $0.hasPrefix("/") && !$0.hasSuffix("/") ? $0 : nil }
        request = try section.value("request", expected: "an absolute file path", absolute) ?? UpdateSettings.defaultRequest
        progress = try section.value("progress", expected: "an absolute file path", absolute) ?? UpdateSettings.defaultProgress
    }

    /// Whether this box takes updates from the fleet (checked when asked: an image's RAUC config does not come and go).
    public var isEnabled: Bool {
        switch mode {
        case .on: true
        case .off: false
        case .auto: FileSystem.exists(UpdateSettings.raucConfig)
        }
    }
}
