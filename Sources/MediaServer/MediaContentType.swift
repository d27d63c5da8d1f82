/// The Content-Type sent for a file, by extension (case-insensitive). Cast
/// receivers pick their player from it, so it must be right for media.
public enum MediaContentType {
    public static let fallback = "application/octet-stream"

    static let byExtension: [String: String] = [
        "mp4": "video/mp4", "m4v": "video/mp4",
        "webm": "video/webm",
        "mkv": "video/x-matroska",
        "mov": "video/quicktime",
        "mp3": "audio/mpeg",
        "aac": "audio/aac",
        "m4a": "audio/mp4",
        "flac": "audio/flac",
        "ogg": "audio/ogg", "oga": "audio/ogg",
        "opus": "audio/ogg",
        "wav": "audio/wav",
        "jpg": "image/jpeg", "jpeg": "image/jpeg",
        "png": "image/png",
        "gif": "image/gif",
        "webp": "image/webp",
        "vtt": "text/vtt",
        "m3u8": "application/vnd.apple.mpegurl",
        "mpd": "application/dash+xml",
        "ts": "video/mp2t",
        "m4s": "video/iso.segment",
    ]

    /// The type for `fileName`'s extension, or `fallback`.
    public static func forFile(_ fileName: String) -> String {
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return fallback }
        let ext = fileName[fileName.index(after: dot)...].lowercased()
        return byExtension[ext] ?? fallback
    }
}
