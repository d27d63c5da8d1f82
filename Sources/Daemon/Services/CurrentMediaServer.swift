import GatewayModel
import Kiosk
import MediaServer
import Synchronization

/// Local paths through whichever media server runs now (the `[media]`
/// service replaces it on a reload); without one, they are refused.
final class CurrentMediaServer: MediaLocator, Sendable {
    private let current = Mutex<MediaServer?>(nil)

    func set(_ server: MediaServer?) { current.withLock { $0 = server } }

    func media(forLocalPath path: String) async throws -> LocatedMedia {
        guard let server = current.withLock({ $0 }) else {
            return try await LocalFilesUnavailable().media(forLocalPath: path)
        }
        let media = try server.media(forLocalPath: path)
        return LocatedMedia(url: media.url, contentType: media.contentType, subtitles: media.subtitles.compactMap { track in
            track.url.map { LocatedMedia.Subtitles(url: $0, language: track.language, name: track.name) }
        })
    }
}
