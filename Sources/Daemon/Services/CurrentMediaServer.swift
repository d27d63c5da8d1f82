import GatewayModel
import Kiosk
import MediaServer
import Synchronization
import SystemSupport

/// Local paths through whichever media server runs now (the `[media]`
/// service replaces it on a reload); without one, they are refused.
final class CurrentMediaServer: MediaLocator, Sendable {
    private let current = Mutex<MediaServer?>(nil)
    private let timeSource: any TimeSource
    /// How long a URL waits for a configured server to start listening.
    static let listenWait = Duration.seconds(10)

    init(timeSource: any TimeSource = SystemTimeSource()) {
        self.timeSource = timeSource
    }

    func set(_ server: MediaServer?) { current.withLock { $0 = server } }

    /// A configured server listens once the receiver's address is known, and
    /// a kiosk asks for its items' URLs right after connecting: on a busy box
    /// the question can come first. Waiting for the listen (bounded) keeps a
    /// kiosk from taking its own item on the TV for a guest's after a power cut.
    func media(forLocalPath path: String) async throws -> LocatedMedia {
        guard let server = current.withLock({ $0 }) else {
            return try await LocalFilesUnavailable().media(forLocalPath: path)
        }
        if server.endpoint == nil, server.canServe(path) {
            await CurrentMediaServer.waitUntilListening(server, timeSource: timeSource, atMost: CurrentMediaServer.listenWait)
        }
        let media = try server.media(forLocalPath: path)
        return LocatedMedia(url: media.url, contentType: media.contentType, subtitles: media.subtitles.compactMap { track in
            track.url.map { LocatedMedia.Subtitles(url: $0, language: track.language, name: track.name) }
        })
    }

    /// Returns once `server` listens, or after `limit` (then its URL says it does not listen).
    static func waitUntilListening(_ server: MediaServer, timeSource: any TimeSource, atMost limit: Duration) async {
        let deadline = timeSource.now + limit
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await endpoint in server.endpoints() where endpoint != nil { return }
            }
            group.addTask { try? await timeSource.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }
}
