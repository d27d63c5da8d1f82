import JSON
/// Parameters of a media LOAD.
public struct LoadRequest: Sendable, Equatable {
    public var media: MediaInformation
    public var autoplay: Bool
    /// Start position in seconds.
    public var currentTime: Double
    public var activeTrackIDs: [Int]
    /// Media credentials for the receiver app (e.g. an account token).
    public var credentials: String?
    public var credentialsType: String?

    public init(media: MediaInformation, autoplay: Bool = true, currentTime: Double = 0, activeTrackIDs: [Int] = [],
                credentials: String? = nil, credentialsType: String? = nil) {
        self.media = media
        self.autoplay = autoplay
        self.currentTime = currentTime
        self.activeTrackIDs = activeTrackIDs
        self.credentials = credentials
        self.credentialsType = credentialsType
    }
}

/// Whether playback continues after a seek.
public enum ResumeState: String, Sendable {
    case playbackStart = "PLAYBACK_START"
    case playbackPause = "PLAYBACK_PAUSE"
}

/// Requests on the media namespace, addressed to the app's transport id.
public enum MediaRequest: Sendable, Equatable {
    case getStatus(mediaSessionID: Int?)
    case load(LoadRequest, sessionID: String)
    case queueLoad(items: [QueueItem], startIndex: Int, repeatMode: String, sessionID: String, credentials: LaunchCredentials? = nil)
    case queueInsert(items: [QueueItem], insertBefore: Int?, mediaSessionID: Int)
    case play(mediaSessionID: Int)
    case pause(mediaSessionID: Int)
    case stop(mediaSessionID: Int)
    case seek(mediaSessionID: Int, position: Double, resumeState: ResumeState?)
    /// QUEUE_UPDATE with `jump`: +1 next, -1 previous.
    case queueJump(mediaSessionID: Int, by: Int)
    /// `[]` turns all text tracks off.
    case editTracks(mediaSessionID: Int, activeTrackIDs: [Int], textTrackStyle: TextTrackStyle?)
    case setPlaybackRate(mediaSessionID: Int, rate: Double)
    case setStreamVolume(mediaSessionID: Int, level: Double?, muted: Bool?)

    public var typeName: String {
        switch self {
        case .getStatus: "GET_STATUS"
        case .load: "LOAD"
        case .queueLoad: "QUEUE_LOAD"
        case .queueInsert: "QUEUE_INSERT"
        case .play: "PLAY"
        case .pause: "PAUSE"
        case .stop: "STOP"
        case .seek: "SEEK"
        case .queueJump: "QUEUE_UPDATE"
        case .editTracks: "EDIT_TRACKS_INFO"
        case .setPlaybackRate: "SET_PLAYBACK_RATE"
        case .setStreamVolume: "SET_VOLUME"
        }
    }

    /// The receiver capability the request needs, checked before sending.
    public var requiredCommand: MediaCommands? {
        switch self {
        case .pause: .pause
        case .seek: .seek
        case .queueJump(_, let by): by >= 0 ? .queueNext : .queuePrevious
        case .editTracks: .editTracks
        case .setPlaybackRate: .playbackRate
        case .setStreamVolume(_, let level, _): level == nil ? .streamMute : .streamVolume
        default: nil
        }
    }

    public func json(requestID: Int) -> JSONValue {
        var object: JSONObject = ["type": .string(typeName), "requestId": .int(requestID)]
        switch self {
        case .getStatus(let mediaSessionID):
            if let mediaSessionID { object["mediaSessionId"] = .int(mediaSessionID) }
        case .load(let load, let sessionID):
            object["sessionId"] = .string(sessionID)
            object["media"] = load.media.json
            object["autoplay"] = .bool(load.autoplay)
            object["currentTime"] = .number(load.currentTime)
            object["activeTrackIds"] = .array(load.activeTrackIDs.map { .int($0) })
            if let credentials = load.credentials { object["credentials"] = .string(credentials) }
            if let type = load.credentialsType { object["credentialsType"] = .string(type) }
        case .queueLoad(let items, let startIndex, let repeatMode, let sessionID, let credentials):
            object["sessionId"] = .string(sessionID)
            object["items"] = .array(items.map(\.json))
            object["startIndex"] = .int(startIndex)
            object["repeatMode"] = .string(repeatMode)
            if let credentials {
                object["credentials"] = .string(credentials.credentials)
                if let type = credentials.credentialsType { object["credentialsType"] = .string(type) }
            }
        case .queueInsert(let items, let insertBefore, let mediaSessionID):
            object["mediaSessionId"] = .int(mediaSessionID)
            object["items"] = .array(items.map(\.json))
            if let insertBefore { object["insertBefore"] = .int(insertBefore) }
        case .play(let id), .pause(let id), .stop(let id):
            object["mediaSessionId"] = .int(id)
        case .seek(let id, let position, let resumeState):
            object["mediaSessionId"] = .int(id)
            object["currentTime"] = .number(position)
            if let resumeState { object["resumeState"] = .string(resumeState.rawValue) }
        case .queueJump(let id, let by):
            object["mediaSessionId"] = .int(id)
            object["jump"] = .int(by)
        case .editTracks(let id, let trackIDs, let style):
            object["mediaSessionId"] = .int(id)
            object["activeTrackIds"] = .array(trackIDs.map { .int($0) })
            if let style { object["textTrackStyle"] = style.json }
        case .setPlaybackRate(let id, let rate):
            object["mediaSessionId"] = .int(id)
            object["playbackRate"] = .number(rate)
        case .setStreamVolume(let id, let level, let muted):
            object["mediaSessionId"] = .int(id)
            var volume = JSONObject()
            if let level { volume["level"] = .number(min(max(level, 0), 1)) }
            if let muted { volume["muted"] = .bool(muted) }
            object["volume"] = .object(volume)
        }
        return .object(object)
    }
}
