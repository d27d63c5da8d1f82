import JSON
/// What the player is doing.
public enum PlayerState: Sendable, Equatable {
    case idle
    case playing
    case paused
    case buffering
    case loading
    /// A state this version does not know; kept verbatim.
    case other(String)

    public init(wireName: String) {
        switch wireName {
        case "IDLE": self = .idle
        case "PLAYING": self = .playing
        case "PAUSED": self = .paused
        case "BUFFERING": self = .buffering
        case "LOADING": self = .loading
        default: self = .other(wireName)
        }
    }

    public var wireName: String {
        switch self {
        case .idle: "IDLE"
        case .playing: "PLAYING"
        case .paused: "PAUSED"
        case .buffering: "BUFFERING"
        case .loading: "LOADING"
        case .other(let name): name
        }
    }
}

/// One queue item as reported in MEDIA_STATUS `items` (or sent in QUEUE_LOAD).
public struct QueueItem: Sendable, Equatable {
    public var itemID: Int?
    public var media: MediaInformation
    public var autoplay: Bool
    public var startTime: Double?
    public var preloadTime: Double?

    public init(itemID: Int? = nil, media: MediaInformation, autoplay: Bool = true, startTime: Double? = nil,
                preloadTime: Double? = nil) {
        self.itemID = itemID
        self.media = media
        self.autoplay = autoplay
        self.startTime = startTime
        self.preloadTime = preloadTime
    }

    public init?(json: JSONValue) {
        guard let media = MediaInformation(json: json["media"]) else { return nil }
        self.media = media
        itemID = json["itemId"]?.intValue
        autoplay = json["autoplay"]?.boolValue ?? true
        startTime = json["startTime"]?.number(clampedTo: CastLimits.positions)
        preloadTime = json["preloadTime"]?.number(clampedTo: CastLimits.positions)
    }

    public var json: JSONValue {
        var object: JSONObject = [:]
        if let itemID { object["itemId"] = .int(itemID) }
        object["media"] = media.json
        object["autoplay"] = .bool(autoplay)
        if let startTime { object["startTime"] = .number(startTime) }
        if let preloadTime { object["preloadTime"] = .number(preloadTime) }
        return .object(object)
    }
}

/// One entry of a MEDIA_STATUS `status` array.
public struct MediaStatus: Sendable, Equatable {
    public var mediaSessionID: Int
    public var playerState: PlayerState
    /// CANCELLED, INTERRUPTED, FINISHED or ERROR when idle.
    public var idleReason: String?
    public var currentTime: Double
    public var playbackRate: Double
    public var supportedCommands: MediaCommands
    public var volume: CastVolume
    public var currentItemID: Int?
    public var activeTrackIDs: [Int]
    public var repeatMode: String?
    /// Sent in full only when it changes; nil means "unchanged", not "none".
    public var media: MediaInformation?
    public var items: [QueueItem]?

    public init(mediaSessionID: Int, playerState: PlayerState, idleReason: String? = nil, currentTime: Double = 0,
                playbackRate: Double = 1, supportedCommands: MediaCommands = [], volume: CastVolume = CastVolume(),
                currentItemID: Int? = nil, activeTrackIDs: [Int] = [], repeatMode: String? = nil,
                media: MediaInformation? = nil, items: [QueueItem]? = nil) {
        self.mediaSessionID = mediaSessionID
        self.playerState = playerState
        self.idleReason = idleReason
        self.currentTime = currentTime
        self.playbackRate = playbackRate
        self.supportedCommands = supportedCommands
        self.volume = volume
        self.currentItemID = currentItemID
        self.activeTrackIDs = activeTrackIDs
        self.repeatMode = repeatMode
        self.media = media
        self.items = items
    }

    /// Nil when `mediaSessionId` or `playerState` is missing.
    public init?(json: JSONValue) {
        guard let sessionID = json["mediaSessionId"]?.intValue,
              let state = json["playerState"]?.stringValue else { return nil }
        mediaSessionID = sessionID
        playerState = PlayerState(wireName: state)
        idleReason = json["idleReason"]?.stringValue
        currentTime = json["currentTime"]?.number(clampedTo: CastLimits.positions) ?? 0
        playbackRate = json["playbackRate"]?.number(clampedTo: CastLimits.playbackRates) ?? 1
        supportedCommands = MediaCommands(rawValue: json["supportedMediaCommands"]?.intValue ?? 0)
        volume = CastVolume(json: json["volume"])
        currentItemID = json["currentItemId"]?.intValue
        activeTrackIDs = json["activeTrackIds"]?.arrayValue?.compactMap(\.intValue) ?? []
        repeatMode = json["repeatMode"]?.stringValue
        media = MediaInformation(json: json["media"])
        items = json["items"]?.arrayValue?.compactMap(QueueItem.init(json:))
    }

    /// Parses every well-formed entry of a MEDIA_STATUS message.
    public static func entries(message: JSONValue) -> [MediaStatus] {
        message["status"]?.arrayValue?.compactMap(MediaStatus.init(json:)) ?? []
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "mediaSessionId": .int(mediaSessionID),
            "playbackRate": .number(playbackRate),
            "playerState": .string(playerState.wireName),
            "currentTime": .number(currentTime),
            "supportedMediaCommands": .int(supportedCommands.rawValue),
            "volume": volume.json,
        ]
        if let idleReason { object["idleReason"] = .string(idleReason) }
        if let currentItemID { object["currentItemId"] = .int(currentItemID) }
        object["activeTrackIds"] = .array(activeTrackIDs.map { .int($0) })
        if let repeatMode { object["repeatMode"] = .string(repeatMode) }
        if let media { object["media"] = media.json }
        if let items { object["items"] = .array(items.map(\.json)) }
        return .object(object)
    }

    /// A MEDIA_STATUS message with these entries answering `requestID` (0 for broadcasts).
    public static func message(_ entries: [MediaStatus], requestID: Int) -> JSONValue {
        ["type": "MEDIA_STATUS", "requestId": .int(requestID), "status": .array(entries.map(\.json))]
    }
}
