import GatewayCore
import GatewayModel

extension KioskPlayer {
    /// Front-desk reset: stops any app on the TV (the guest's), forgets
    /// credentials typed at runtime, resets the volume, and restarts the loop
    /// from the first item (`start = boot`; otherwise it waits as at boot).
    public func checkout() async throws -> KioskReply {
        try await answer(.checkout)
    }

    /// Re-reads the playlist; the current item carries on when it is still listed.
    public func reloadPlaylist() async throws -> KioskReply {
        guard settings.source != .none else {
            throw GatewayError(.badArgument, "no playlist is configured ([kiosk] playlist or media)")
        }
        let fresh: Playlist
        do {
            fresh = try Playlist.load(settings.source)
        } catch {
            logger.error("playlist not reloaded, the old one plays on: \(error)")
            throw GatewayError(.badArgument, "playlist not reloaded, the old one plays on: \(error)")
        }
        return try await answer(.reload(fresh))
    }

    /// The current item, its position and what the loop is doing.
    public func status() -> [String] {
        machine.status(at: instant, saveProblem: store.saveProblem)
    }

    public func startLoop() async throws -> KioskReply {
        try await answer(.startLoop)
    }

    public func stopLoop() async throws -> KioskReply {
        try await answer(.stopLoop)
    }

    public func skip(by offset: Int) async throws -> KioskReply {
        try await answer(.skip(by: offset))
    }

    public func play(item: Int) async throws -> KioskReply {
        try await answer(.play(item: item))
    }

    /// `start = key`: a play key starts the loop.
    public func keyPressed(_ action: Action?) async {
        await send(.command(.key(action)))
    }

    private func answer(_ command: KioskCommand) async throws -> KioskReply {
        guard let answer = await send(.command(command)) else { return KioskReply([]) }
        return try answer.get()
    }
}
