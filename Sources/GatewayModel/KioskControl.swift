/// What the console (and MQTT, through the same interpreter) can ask of the
/// kiosk player, without the core knowing the Kiosk module. A command
/// carried out answers a typed `KioskReply` (its lines and the steps that
/// failed); one that was not throws an error with a code that says why.
public protocol KioskControl: Sendable {
    /// Front-desk reset: stop any guest app, forget typed credentials, reset
    /// the volume, restart the loop from the first item.
    func checkout() async throws -> KioskReply
    /// Re-reads the playlist file (or media directory).
    func reloadPlaylist() async throws -> KioskReply
    /// The current item, its position and what the loop is doing.
    func playlistStatus() async -> [String]
    /// Starts the loop now (`start = key` or `never`, or after `playlist stop`).
    func startLoop() async throws -> KioskReply
    /// Stops the loop and its media until `playlist start` or checkout.
    func stopLoop() async throws -> KioskReply
    /// Skips to the next (or with -1 the previous) item.
    func skip(by offset: Int) async throws -> KioskReply
    /// Plays item `item` (from 1) of the playlist now.
    func play(item: Int) async throws -> KioskReply
    /// A remote key's action, for `start = key`.
    func keyPressed(_ action: Action?) async
}
