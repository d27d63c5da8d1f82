import CastClient
import CastProtocol
import Configuration
import SystemSupport

/// `[cast]`: what the gateway launches and with which credentials.
public struct CastSettings: SettingsSection {
    public static let sectionName = "cast"
    public var appID = CastAppID.defaultMediaReceiver
    /// Also accept an Android TV receiver for the app (Cast Connect).
    public var allowsAndroidReceiver = false
    /// Sent with LAUNCH (`credentialsData`).
    public var launchCredentials: LaunchCredentials?
    /// Sent with LOAD and QUEUE_LOAD, which Cast Connect receivers read to sign
    /// the user in; nil uses the launch credentials.
    public var mediaCredentials: LaunchCredentials?
    /// Device authentication: challenge the receiver and check its answer.
    public var authentication = AuthenticationPolicy.warn
    /// A directory of PEM files: the Cast root certificates to trust.
    public var trustAnchors: String?

    public init() {}

    /// The credentials LOAD carries: the media ones, else the launch ones.
    public var effectiveMediaCredentials: LaunchCredentials? { mediaCredentials ?? launchCredentials }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        if let appID = try section.value("app-id", expected: "a receiver app id such as CC1AD845", CastSettings.validAppID) {
            self.appID = appID
        }
        allowsAndroidReceiver = try section.bool("android-receiver") ?? false
        launchCredentials = try CastSettings.credentials(&section, value: "credentials", type: "credentials-type")
        mediaCredentials = try CastSettings.credentials(&section, value: "media-credentials", type: "media-credentials-type")
        authentication = try section.value("authentication", expected: "off, warn or require", AuthenticationPolicy.init(rawValue:)) ?? .warn
        trustAnchors = try section.string("trust-anchors")
        if authentication == .require, trustAnchors == nil, let entry = section.entry("authentication") {
            throw section.error(entry, "require needs [cast] trust-anchors = DIR (the Cast root certificates to check receivers against)")
        }
    }

    /// Receiver app ids are short tokens of letters, digits, `_`, `-` and `.`.
    public static func validAppID(_ text: String) -> String? {
        guard !text.isEmpty, text.count <= 64,
              text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }) else { return nil }
        return text
    }

    /// A credentials pair; a type without a value is an error.
    private static func credentials(_ section: inout ConfigSection, value: String, type: String) throws(ConfigError) -> LaunchCredentials? {
        let credentials = try section.string(value)
        let credentialsType = try section.string(type)
        if credentials == nil, credentialsType != nil, let entry = section.entry(type) {
            throw section.error(entry, "is set but [cast] \(value) is not")
        }
        return credentials.map { LaunchCredentials(credentials: $0, credentialsType: credentialsType) }
    }
}
