/// Turns a local file into something a Cast receiver can fetch: the URL of
/// the box's media server, and the file's sidecar subtitles. Receivers only
/// play what they can fetch over HTTP, so local paths in playlists, presets
/// and `cast` go through this seam. The media server implements it; without
/// one, local files are refused with a message that says so.
public protocol MediaLocator: Sendable {
    /// The media for `path` (absolute), or an error that says why it cannot be served.
    func media(forLocalPath path: String) async throws -> LocatedMedia
}

/// A local file as a receiver fetches it.
public struct LocatedMedia: Sendable, Equatable {
    /// One WebVTT text track next to the file (`NAME.vtt`, `NAME.LANG.vtt`).
    public struct Subtitles: Sendable, Equatable {
        public var url: String
        /// BCP 47 tag, nil when the file name has none.
        public var language: String?
        public var name: String

        public init(url: String, language: String? = nil, name: String = "Subtitles") {
            self.url = url
            self.language = language
            self.name = name
        }
    }

    public var url: String
    /// nil: guessed from the extension.
    public var contentType: String?
    public var subtitles: [Subtitles]

    public init(url: String, contentType: String? = nil, subtitles: [Subtitles] = []) {
        self.url = url
        self.contentType = contentType
        self.subtitles = subtitles
    }
}
