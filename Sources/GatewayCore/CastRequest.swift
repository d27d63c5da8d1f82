import CastProtocol

/// "Play this URL": what `cast-gateway cast`, the console's `cast` and the
/// presets ask for, turned into a LOAD.
public struct CastRequest: Sendable, Equatable {
    public var url: String
    public var title: String?
    public var subtitle: String?
    public var imageURL: String?
    /// Guessed from the URL's extension when nil.
    public var contentType: String?
    public var live = false
    /// A WebVTT subtitle track, shown from the start.
    public var subtitlesURL: String?
    public var subtitlesLanguage = "en"
    public var startTime: Double = 0
    public var autoplay = true
    /// Media credentials passed with LOAD.
    public var credentials: String?
    public var credentialsType: String?

    public init(url: String, title: String? = nil) {
        self.url = url
        self.title = title
    }

    /// A path on the box (`/srv/media/a.mp4`), which the media server serves, not a URL.
    public var isLocalFile: Bool { url.hasPrefix("/") }

    /// The LOAD parameters.
    public var loadRequest: LoadRequest {
        var tracks: [MediaTrack] = []
        if let subtitlesURL {
            tracks.append(MediaTrack(trackID: 1, kind: .text, subtype: "SUBTITLES", contentID: subtitlesURL,
                                     contentType: "text/vtt", name: "Subtitles", language: subtitlesLanguage))
        }
        let metadata = MediaMetadata(metadataType: 0, title: title ?? CastRequest.lastPathComponent(of: url),
                                     subtitle: subtitle, imageURLs: imageURL.map { [$0] } ?? [])
        let media = MediaInformation(contentID: url, contentURL: url, contentType: contentType ?? CastRequest.guessContentType(url),
                                     streamType: live ? .live : .buffered, metadata: metadata, tracks: tracks,
                                     textTrackStyle: subtitlesURL == nil ? nil : TextTrackStyle(
                                        backgroundColor: "#00000099", edgeType: "OUTLINE", fontScale: 1))
        return LoadRequest(media: media, autoplay: autoplay, currentTime: startTime,
                           activeTrackIDs: tracks.isEmpty ? [] : [1],
                           credentials: credentials, credentialsType: credentialsType)
    }

    /// Fails when the LOAD would not fit in one Cast message (64 KiB, with
    /// room for the envelope): a 100 KB URL is refused here, before any
    /// connection, with the limit named.
    public func checkSize() throws(GatewayError) {
        let payload = MediaRequest.load(loadRequest, sessionID: String(repeating: "0", count: 36)).json(requestID: 1).serialized
        let limit = CastMessage.maximumBodySize - 512
        guard payload.utf8.count <= limit else {
            throw GatewayError(.badArgument, "the LOAD for this URL would be \(payload.utf8.count) bytes; a Cast message carries at most \(CastMessage.maximumBodySize) bytes (the URL is \(url.utf8.count) bytes and is sent twice): use a shorter URL")
        }
    }

    /// A queue item for "add to queue".
    public var queueItem: QueueItem {
        QueueItem(media: loadRequest.media, autoplay: true, startTime: startTime > 0 ? startTime : nil)
    }

    /// Content type by file extension (receivers need one); `video/mp4` when unknown.
    public static func guessContentType(_ url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let types: [String: String] = [
            "mp4": "video/mp4", "m4v": "video/mp4", "webm": "video/webm", "mkv": "video/x-matroska",
            "m3u8": "application/x-mpegURL", "mpd": "application/dash+xml", "ts": "video/mp2t",
            "mp3": "audio/mpeg", "m4a": "audio/mp4", "aac": "audio/aac", "flac": "audio/flac",
            "ogg": "audio/ogg", "opus": "audio/ogg", "wav": "audio/wav",
            "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        ]
        return types[ext] ?? "video/mp4"
    }

    static func lastPathComponent(of url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let name = path.split(separator: "/").last.map(String.init) ?? url
        return name.isEmpty ? url : name
    }
}
