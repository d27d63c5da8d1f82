import Configuration
import GatewayModel
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
    public static let defaultRelease = "/etc/cast-gateway/release"
    public static let defaultReport = "/var/lib/cast-gateway/update/report"

    /// `from-fleet = auto | yes | no`.
    public var mode = Mode.auto
    /// Where the request goes (the gateway's state directory: it may write only there).
    public var request = UpdateSettings.defaultRequest
    /// Where the root helper writes its progress (a root-owned directory the gateway reads).
    public var progress = UpdateSettings.defaultProgress
    /// The installed release (`VERSION=` from deploy/image, carried by each
    /// bundle): the version the gateway reports, when the file exists.
    public var release = UpdateSettings.defaultRelease
    /// commit-slot's report of the last update (deploy/rauc/commit-slot).
    public var report = UpdateSettings.defaultReport

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
        release = try section.value("release", expected: "an absolute file path", absolute) ?? UpdateSettings.defaultRelease
        report = try section.value("report", expected: "an absolute file path", absolute) ?? UpdateSettings.defaultReport
    }

    /// The release the image or the last bundle installed (`VERSION=...` in
    /// `release`); nil without the file (a box installed from the package).
    /// The binary only knows its base version; this one names the build
    /// (`0.1.0+git12.ab12cd3`), the one bundles and rollouts compare.
    public func installedRelease() -> String? {
        guard let text = try? FileSystem.readRegularFile(release, limit: 4096) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VERSION=") {
            var value = line.dropFirst("VERSION=".count)
            if value.count >= 2, let first = value.first, first == value.last, first == "\"" || first == "'" { value = value.dropFirst().dropLast() }
            guard !value.isEmpty, value.count <= UpdateReport.maximumVersionLength,
                  value.allSatisfy({ $0.isASCII && $0 > " " && $0 != "\u{7F}" }) else { return nil }
            return String(value)
        }
        return nil
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
