import Dispatch
import GatewayCore
import GatewayModel
import SystemSupport

/// The gateway's half of an A/B update from the fleet: it checks that this
/// box takes updates and that none is under way, then writes the request
/// file that wakes the root helper (cast-gateway-update.path runs
/// deploy/rauc/install-request). It never runs RAUC itself: the daemon has no
/// privileges at all.
public final class Updater: UpdateControl {
    private let settings: @Sendable () -> UpdateSettings
    private let gateway: Gateway
    private let queue = DispatchQueue(label: "cast-gateway.update")
    private let logger = Logger(label: "update")

    /// `settings`: the `[update]` in force (a reload may change it).
    public init(settings: @escaping @Sendable () -> UpdateSettings, gateway: Gateway) {
        self.settings = settings
        self.gateway = gateway
    }

    public func install(_ request: UpdateRequest) async throws -> [String] {
        let settings = self.settings()
        guard settings.isEnabled else {
            let why = settings.mode == .off ? "[update] from-fleet = no" : "no \(UpdateSettings.raucConfig): not an A/B image"
            throw GatewayError(.unavailable, "this box has no A/B updates (\(why)); update it over ssh with deploy/install")
        }
        let before = await gateway.state.updateProgress
        // Requested but not taken yet (no helper ran): a new request replaces it.
        if let before, before.isActive, before.phase != .requested {
            throw GatewayError(.unavailable, "an update is already under way (\(before.summary)); wait for it to end")
        }
        // Shown before the file exists: whatever the helper then writes comes after it.
        await gateway.setUpdateProgress(UpdateProgress(phase: .requested, version: request.version))
        let path = settings.request
        let bytes = Array(request.fileText.utf8)
        // fsync on an SD card can take a while: not on the cooperative pool.
        let failure: String? = await withCheckedContinuation { continuation in
            queue.async {
                do {
                    try FileSystem.writeAtomically(path, bytes: bytes, mode: 0o600)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: "\(error)")
                }
            }
        }
        if let failure {
            await gateway.setUpdateProgress(before)
            logger.error("the update request was not written: \(failure)")
            throw GatewayError(.unavailable, "cannot write the update request \(path): \(failure) (is the state directory writable?)")
        }
        let what = request.version.map { "\($0) " } ?? ""
        logger.notice("update \(what)from \(request.shownURL) requested (\(path))")
        return ["ok: update \(what)from \(request.shownURL) requested; the box installs it and reboots ('update' shows how it goes)"]
    }
}
