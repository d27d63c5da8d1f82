import JSON
/// Credentials passed to a receiver at launch (Cast Connect / Android TV
/// receivers use them to sign the user in). Never printed: `description` redacts.
public struct LaunchCredentials: Sendable, Equatable, CustomStringConvertible {
    public var credentials: String
    public var credentialsType: String?

    public init(credentials: String, credentialsType: String? = nil) {
        self.credentials = credentials
        self.credentialsType = credentialsType
    }

    public var description: String {
        "LaunchCredentials(<redacted>, type: \(credentialsType ?? "none"))"
    }

    /// The LAUNCH member carrying the credentials. The SDKs model this as
    /// `CredentialsData(credentials, credentialsType)`; the wire name
    /// `credentialsData` has not been confirmed in any open-source sender,
    /// which is why it lives in this one place only.
    static let launchMemberName = "credentialsData"

    var launchMember: JSONValue {
        var object: JSONObject = ["credentials": .string(credentials)]
        if let credentialsType { object["credentialsType"] = .string(credentialsType) }
        return .object(object)
    }
}

/// Parameters of a receiver LAUNCH.
public struct LaunchRequest: Sendable, Equatable {
    public var appID: String
    public var language: String
    /// Allow an Android TV receiver app (Cast Connect) as well as a web receiver.
    public var allowsAndroidReceiver: Bool
    public var credentials: LaunchCredentials?

    public init(appID: String, language: String = "en-US", allowsAndroidReceiver: Bool = false, credentials: LaunchCredentials? = nil) {
        self.appID = appID
        self.language = language
        self.allowsAndroidReceiver = allowsAndroidReceiver
        self.credentials = credentials
    }

    /// `["WEB"]`, or `["WEB","ANDROID_TV"]` when an Android receiver is allowed
    /// (what the iOS SDK's `androidReceiverCompatible` produces).
    public var supportedAppTypes: [String] {
        allowsAndroidReceiver ? ["WEB", "ANDROID_TV"] : ["WEB"]
    }
}

/// Requests on the receiver namespace, addressed to `receiver-0`.
public enum ReceiverRequest: Sendable, Equatable {
    case getStatus
    case launch(LaunchRequest)
    case stop(sessionID: String)
    case setVolumeLevel(Double)
    case setMuted(Bool)
    case getAppAvailability([String])

    /// The wire `type`.
    public var typeName: String {
        switch self {
        case .getStatus: "GET_STATUS"
        case .launch: "LAUNCH"
        case .stop: "STOP"
        case .setVolumeLevel, .setMuted: "SET_VOLUME"
        case .getAppAvailability: "GET_APP_AVAILABILITY"
        }
    }

    /// The payload with `requestID`. Volume level is clamped to 0...1; level
    /// and mute are always separate requests, as receivers expect.
    public func json(requestID: Int) -> JSONValue {
        var object: JSONObject = ["type": .string(typeName), "requestId": .int(requestID)]
        switch self {
        case .getStatus:
            break
        case .launch(let launch):
            object["appId"] = .string(launch.appID)
            object["language"] = .string(launch.language)
            object["supportedAppTypes"] = .array(launch.supportedAppTypes.map { .string($0) })
            if let credentials = launch.credentials {
                object[LaunchCredentials.launchMemberName] = credentials.launchMember
            }
        case .stop(let sessionID):
            object["sessionId"] = .string(sessionID)
        case .setVolumeLevel(let level):
            object["volume"] = ["level": .number(min(max(level, 0), 1))]
        case .setMuted(let muted):
            object["volume"] = ["muted": .bool(muted)]
        case .getAppAvailability(let appIDs):
            object["appId"] = .array(appIDs.map { .string($0) })
        }
        return .object(object)
    }
}
