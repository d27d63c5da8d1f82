import GatewayCore

/// One entry of the kiosk's playlist.
public struct PlaylistItem: Sendable, Equatable {
    public enum Location: Sendable, Equatable {
        /// An http(s) URL, cast as it is.
        case url(String)
        /// An absolute local path, served by the media server.
        case localPath(String)
    }

    public enum Kind: String, Sendable, Equatable {
        case video, audio, image
    }

    public var location: Location
    public var title: String?
    public var kind: Kind
    /// Seconds a slide shows (images); nil: `image-duration`.
    public var duration: Double?

    public init(location: Location, title: String? = nil, kind: Kind? = nil, duration: Double? = nil) {
        self.location = location
        self.title = title
        self.kind = kind ?? PlaylistItem.kind(of: location.text)
        self.duration = duration
    }

    /// The URL or path as written: the item's identity in the saved state.
    public var source: String { location.text }

    /// What `playlist` and Home Assistant call it: its title, or else its file name.
    public var name: String { title ?? KioskMachine.fileName(source) }

    /// By file extension: JPEG/PNG/GIF/WebP are slides, the usual audio types audio, the rest video.
    public static func kind(of name: String) -> Kind {
        let type = CastRequest.guessContentType(name)
        if type.hasPrefix("image/") { return .image }
        if type.hasPrefix("audio/") { return .audio }
        return .video
    }

    /// Extensions a `media = DIR` loop picks up.
    public static let mediaExtensions: Set<String> = [
        "mp4", "m4v", "webm", "mkv", "mp3", "m4a", "aac", "flac", "ogg", "opus", "wav", "jpg", "jpeg", "png", "gif", "webp",
    ]
}

extension PlaylistItem.Location {
    public var text: String {
        switch self {
        case .url(let url): url
        case .localPath(let path): path
        }
    }
}
