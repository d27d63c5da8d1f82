import JSON
/// What to play: the `media` object of LOAD and MEDIA_STATUS.
public struct MediaInformation: Sendable, Equatable {
    /// BUFFERED (files), LIVE (streams) or NONE.
    public enum StreamType: String, Sendable {
        case buffered = "BUFFERED"
        case live = "LIVE"
        case none = "NONE"
    }

    public var contentID: String
    public var contentURL: String?
    public var contentType: String
    public var streamType: StreamType
    public var metadata: MediaMetadata?
    /// Seconds; nil for live streams or when unknown.
    public var duration: Double?
    public var tracks: [MediaTrack]
    public var textTrackStyle: TextTrackStyle?

    public init(contentID: String, contentURL: String? = nil, contentType: String, streamType: StreamType = .buffered,
                metadata: MediaMetadata? = nil, duration: Double? = nil, tracks: [MediaTrack] = [],
                textTrackStyle: TextTrackStyle? = nil) {
        self.contentID = contentID
        self.contentURL = contentURL
        self.contentType = contentType
        self.streamType = streamType
        self.metadata = metadata
        self.duration = duration
        self.tracks = tracks
        self.textTrackStyle = textTrackStyle
    }

    public init?(json: JSONValue?) {
        guard let json, let contentID = json["contentId"]?.stringValue ?? json["contentUrl"]?.stringValue else { return nil }
        self.contentID = contentID
        contentURL = json["contentUrl"]?.stringValue
        contentType = json["contentType"]?.stringValue ?? ""
        streamType = json["streamType"]?.stringValue.flatMap(StreamType.init(rawValue:)) ?? .buffered
        metadata = json["metadata"].flatMap(MediaMetadata.init(json:))
        duration = json["duration"]?.number(clampedTo: CastLimits.positions)
        tracks = json["tracks"]?.arrayValue?.compactMap(MediaTrack.init(json:)) ?? []
        textTrackStyle = json["textTrackStyle"].map(TextTrackStyle.init(json:))
    }

    public var json: JSONValue {
        var object: JSONObject = ["contentId": .string(contentID)]
        if let contentURL { object["contentUrl"] = .string(contentURL) }
        object["streamType"] = .string(streamType.rawValue)
        object["contentType"] = .string(contentType)
        if let metadata { object["metadata"] = metadata.json }
        if let duration { object["duration"] = .number(duration) }
        if !tracks.isEmpty { object["tracks"] = .array(tracks.map(\.json)) }
        if let textTrackStyle { object["textTrackStyle"] = textTrackStyle.json }
        return .object(object)
    }
}

/// Title, subtitle and artwork shown by the receiver.
public struct MediaMetadata: Sendable, Equatable {
    /// 0 generic, 1 movie, 2 TV show, 3 music track, 4 photo.
    public var metadataType: Int
    public var title: String?
    public var subtitle: String?
    public var imageURLs: [String]

    public init(metadataType: Int = 0, title: String? = nil, subtitle: String? = nil, imageURLs: [String] = []) {
        self.metadataType = metadataType
        self.title = title
        self.subtitle = subtitle
        self.imageURLs = imageURLs
    }

    public init?(json: JSONValue) {
        guard json.objectValue != nil else { return nil }
        metadataType = json["metadataType"]?.intValue ?? 0
        title = json["title"]?.stringValue
        subtitle = json["subtitle"]?.stringValue ?? json["artist"]?.stringValue ?? json["seriesTitle"]?.stringValue
        imageURLs = json["images"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
    }

    public var json: JSONValue {
        var object: JSONObject = ["metadataType": .int(metadataType)]
        if let title { object["title"] = .string(title) }
        if let subtitle { object["subtitle"] = .string(subtitle) }
        if !imageURLs.isEmpty { object["images"] = .array(imageURLs.map { ["url": .string($0)] }) }
        return .object(object)
    }
}

/// A text, audio or video track of the media.
public struct MediaTrack: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case text = "TEXT"
        case audio = "AUDIO"
        case video = "VIDEO"
    }

    public var trackID: Int
    public var kind: Kind
    /// For text tracks: SUBTITLES, CAPTIONS, DESCRIPTIONS, CHAPTERS, METADATA.
    public var subtype: String?
    public var contentID: String?
    public var contentType: String?
    public var name: String?
    public var language: String?

    public init(trackID: Int, kind: Kind, subtype: String? = nil, contentID: String? = nil, contentType: String? = nil,
                name: String? = nil, language: String? = nil) {
        self.trackID = trackID
        self.kind = kind
        self.subtype = subtype
        self.contentID = contentID
        self.contentType = contentType
        self.name = name
        self.language = language
    }

    public init?(json: JSONValue) {
        guard let trackID = json["trackId"]?.intValue,
              let kind = json["type"]?.stringValue.flatMap(Kind.init(rawValue:)) else { return nil }
        self.trackID = trackID
        self.kind = kind
        subtype = json["subtype"]?.stringValue
        contentID = json["trackContentId"]?.stringValue
        contentType = json["trackContentType"]?.stringValue
        name = json["name"]?.stringValue
        language = json["language"]?.stringValue
    }

    public var json: JSONValue {
        var object: JSONObject = ["trackId": .int(trackID), "type": .string(kind.rawValue)]
        if let subtype { object["subtype"] = .string(subtype) }
        if let contentID { object["trackContentId"] = .string(contentID) }
        if let contentType { object["trackContentType"] = .string(contentType) }
        if let name { object["name"] = .string(name) }
        if let language { object["language"] = .string(language) }
        return .object(object)
    }
}

/// How text tracks are drawn. Colors are `#RRGGBBAA`; members left nil are
/// not sent, so the receiver keeps its defaults.
public struct TextTrackStyle: Sendable, Equatable {
    public var foregroundColor: String?
    public var backgroundColor: String?
    /// NONE, OUTLINE, DROP_SHADOW, RAISED or DEPRESSED.
    public var edgeType: String?
    public var edgeColor: String?
    public var fontScale: Double?
    public var fontFamily: String?
    public var fontGenericFamily: String?
    public var fontStyle: String?
    public var windowType: String?
    public var windowColor: String?

    public init(foregroundColor: String? = nil, backgroundColor: String? = nil, edgeType: String? = nil,
                edgeColor: String? = nil, fontScale: Double? = nil, fontFamily: String? = nil,
                fontGenericFamily: String? = nil, fontStyle: String? = nil, windowType: String? = nil,
                windowColor: String? = nil) {
        self.foregroundColor = foregroundColor
        self.backgroundColor = backgroundColor
        self.edgeType = edgeType
        self.edgeColor = edgeColor
        self.fontScale = fontScale
        self.fontFamily = fontFamily
        self.fontGenericFamily = fontGenericFamily
        self.fontStyle = fontStyle
        self.windowType = windowType
        self.windowColor = windowColor
    }

    public init(json: JSONValue) {
        foregroundColor = json["foregroundColor"]?.stringValue
        backgroundColor = json["backgroundColor"]?.stringValue
        edgeType = json["edgeType"]?.stringValue
        edgeColor = json["edgeColor"]?.stringValue
        fontScale = json["fontScale"]?.doubleValue
        fontFamily = json["fontFamily"]?.stringValue
        fontGenericFamily = json["fontGenericFamily"]?.stringValue
        fontStyle = json["fontStyle"]?.stringValue
        windowType = json["windowType"]?.stringValue
        windowColor = json["windowColor"]?.stringValue
    }

    public var json: JSONValue {
        var object = JSONObject()
        let strings: [(String, String?)] = [
            ("foregroundColor", foregroundColor), ("backgroundColor", backgroundColor), ("edgeType", edgeType),
            ("edgeColor", edgeColor), ("fontFamily", fontFamily), ("fontGenericFamily", fontGenericFamily),
            ("fontStyle", fontStyle), ("windowType", windowType), ("windowColor", windowColor),
        ]
        for (key, value) in strings {
            if let value { object[key] = .string(value) }
        }
        if let fontScale { object["fontScale"] = .number(fontScale) }
        return .object(object)
    }
}
