import GatewayCore
import GatewayModel
import ServiceLifecycle
import Synchronization
import SystemSupport

/// The kiosk as a daemon service: one `KioskPlayer` per generation of the
/// `[kiosk]` settings (a changed section restarts it; the saved position
/// carries the loop over). The player is reachable through `handle`.
public struct KioskService: Service {
    public let name = "kiosk"
    private let settings: KioskSettings
    private let gateway: Gateway
    private let locator: any MediaLocator
    private let wallClock: any WallClock
    private let handle: KioskHandle

    public init(settings: KioskSettings, gateway: Gateway, handle: KioskHandle, locator: any MediaLocator = LocalFilesUnavailable(),
                wallClock: any WallClock = SystemWallClock()) {
        self.settings = settings
        self.gateway = gateway
        self.handle = handle
        self.locator = locator
        self.wallClock = wallClock
    }

    public func run() async throws {
        let player = KioskPlayer(settings: settings, gateway: gateway, locator: locator, wallClock: wallClock)
        handle.attach(player)
        defer { handle.detach(player) }
        await player.run()
    }
}

/// What runs for the kiosk without `[kiosk]`: the items a kiosk showed
/// in the gateway's state (a reload turned it off) are cleared, so Home
/// Assistant's `Play` select no longer offers them.
public struct KioskOff: Service {
    public let name = "kiosk"
    private let gateway: Gateway

    public init(gateway: Gateway) {
        self.gateway = gateway
    }

    public func run() async throws {
        await gateway.setKioskItems(nil)
    }
}

/// The console's way to the kiosk player that runs now (it is replaced when
/// `[kiosk]` changes): `checkout`, `playlist ...`, and play keys for `start = key`.
public final class KioskHandle: KioskControl {
    private let current = Mutex<KioskPlayer?>(nil)

    public init() {}

    public var player: KioskPlayer? { current.withLock { $0 } }

    func attach(_ player: KioskPlayer) {
        current.withLock { $0 = player }
    }

    func detach(_ player: KioskPlayer) {
        current.withLock { if $0 === player { $0 = nil } }
    }

    private func requirePlayer() throws(GatewayError) -> KioskPlayer {
        guard let player else {
            throw GatewayError(.unavailable, "the kiosk is not running: add a [kiosk] section with playlist, media or app-id")
        }
        return player
    }

    public func checkout() async throws -> KioskReply { try await requirePlayer().checkout() }
    public func reloadPlaylist() async throws -> KioskReply { try await requirePlayer().reloadPlaylist() }
    public func startLoop() async throws -> KioskReply { try await requirePlayer().startLoop() }
    public func stopLoop() async throws -> KioskReply { try await requirePlayer().stopLoop() }
    public func skip(by offset: Int) async throws -> KioskReply { try await requirePlayer().skip(by: offset) }
    public func play(item: Int) async throws -> KioskReply { try await requirePlayer().play(item: item) }

    public func playlistStatus() async -> [String] {
        guard let player else { return ["playlist: the kiosk is not running (no [kiosk] section)"] }
        return await player.status()
    }

    /// Only a key that can start the loop (`start = key`) reaches the player:
    /// a volume or seek key does not enter the kiosk's actor at all.
    public func keyPressed(_ action: Action?) async {
        guard let action, KioskMachine.loopStartingActions.contains(action) else { return }
        await player?.keyPressed(action)
    }

    /// A live reload for the running player, if any: the gateway's app id
    /// anew, and the playlist re-read (failures are logged by the player).
    public func reloadIfRunning() async {
        await player?.reloadConfiguration()
    }
}
