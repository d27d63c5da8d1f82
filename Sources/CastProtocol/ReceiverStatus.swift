import JSON
/// Device volume from RECEIVER_STATUS (or stream volume from MEDIA_STATUS).
public struct CastVolume: Sendable, Equatable {
    public var level: Double?
    public var muted: Bool?
    /// `attenuation`, `fixed` or `master`; a fixed volume cannot be changed.
    public var controlType: String?
    public var stepInterval: Double?

    public init(level: Double? = nil, muted: Bool? = nil, controlType: String? = nil, stepInterval: Double? = nil) {
        self.level = level
        self.muted = muted
        self.controlType = controlType
        self.stepInterval = stepInterval
    }

    public init(json: JSONValue?) {
        level = json?["level"]?.number(clampedTo: CastLimits.volumeLevels)
        muted = json?["muted"]?.boolValue
        controlType = json?["controlType"]?.stringValue
        stepInterval = json?["stepInterval"]?.number(clampedTo: CastLimits.volumeLevels)
    }

    public var json: JSONValue {
        var object = JSONObject()
        if let controlType { object["controlType"] = .string(controlType) }
        if let level { object["level"] = .number(level) }
        if let muted { object["muted"] = .bool(muted) }
        if let stepInterval { object["stepInterval"] = .number(stepInterval) }
        return .object(object)
    }
}

/// A running receiver application as listed in RECEIVER_STATUS.
public struct ReceiverApplication: Sendable, Equatable {
    public var appID: String
    public var displayName: String
    public var isIdleScreen: Bool
    public var namespaces: [String]
    public var sessionID: String
    public var statusText: String
    /// The endpoint id to CONNECT to and address media requests to.
    public var transportID: String
    public var universalAppID: String?

    public init(appID: String, displayName: String, isIdleScreen: Bool = false, namespaces: [String],
                sessionID: String, statusText: String, transportID: String, universalAppID: String? = nil) {
        self.appID = appID
        self.displayName = displayName
        self.isIdleScreen = isIdleScreen
        self.namespaces = namespaces
        self.sessionID = sessionID
        self.statusText = statusText
        self.transportID = transportID
        self.universalAppID = universalAppID
    }

    /// Nil when a required member (appId, sessionId, transportId) is missing.
    public init?(json: JSONValue) {
        guard let appID = json["appId"]?.stringValue,
              let sessionID = json["sessionId"]?.stringValue,
              let transportID = json["transportId"]?.stringValue else { return nil }
        self.appID = appID
        self.sessionID = sessionID
        self.transportID = transportID
        displayName = json["displayName"]?.stringValue ?? appID
        isIdleScreen = json["isIdleScreen"]?.boolValue ?? false
        namespaces = json["namespaces"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        statusText = json["statusText"]?.stringValue ?? ""
        universalAppID = json["universalAppId"]?.stringValue
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "appId": .string(appID),
            "displayName": .string(displayName),
            "isIdleScreen": .bool(isIdleScreen),
            "launchedFromCloud": false,
            "namespaces": .array(namespaces.map { ["name": .string($0)] }),
            "sessionId": .string(sessionID),
            "statusText": .string(statusText),
            "transportId": .string(transportID),
        ]
        if let universalAppID { object["universalAppId"] = .string(universalAppID) }
        return .object(object)
    }

    /// Whether the app speaks the media namespace.
    public var supportsMedia: Bool { namespaces.contains(CastNamespace.media) }
}

/// The `status` of a RECEIVER_STATUS message.
public struct ReceiverStatus: Sendable, Equatable {
    public var volume: CastVolume
    public var applications: [ReceiverApplication]

    public init(volume: CastVolume, applications: [ReceiverApplication]) {
        self.volume = volume
        self.applications = applications
    }

    /// Parses a RECEIVER_STATUS payload (the whole message, with `status` inside).
    public init(message: JSONValue) {
        let status = message["status"]
        volume = CastVolume(json: status?["volume"])
        applications = status?["applications"]?.arrayValue?.compactMap(ReceiverApplication.init(json:)) ?? []
    }

    /// The foreground application that is not the idle screen, if any.
    public var activeApplication: ReceiverApplication? {
        applications.first { !$0.isIdleScreen }
    }

    /// A RECEIVER_STATUS message answering `requestID` (0 for broadcasts).
    public func message(requestID: Int) -> JSONValue {
        var status: JSONObject = ["volume": volume.json]
        if !applications.isEmpty { status["applications"] = .array(applications.map(\.json)) }
        return ["type": "RECEIVER_STATUS", "requestId": .int(requestID), "status": .object(status)]
    }
}
