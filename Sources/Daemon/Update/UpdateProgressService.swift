import GatewayCore
import GatewayModel
import ServiceLifecycle
import SystemSupport

/// Shows the root helper's progress file in the gateway's state: read at
/// start and again each time inotify says it changed (no polling). A file
/// removed leaves what was shown; a broken one is logged and shows nothing.
struct UpdateProgressService: Service {
    let name = "update"
    let path: String
    let gateway: Gateway
    private let logger = Logger(label: "update")

    init(path: String, gateway: Gateway) {
        self.path = path
        self.gateway = gateway
    }

    func run() async throws {
        let changes: AsyncStream<Void>
        do {
            changes = try FileWatch.changes(of: path)
        } catch {
            throw GatewayError(.unavailable, "cannot follow update progress in \(path): \(error.reason) (the root side, cast-gateway-update.path from deploy/rauc, creates it)")
        }
        var last: String?
        await read(&last)
        for await _ in changes {
            await read(&last)
        }
    }

    /// Reads the file; only a change reaches the gateway (other files in the directory wake this too).
    private func read(_ last: inout String?) async {
        var text: String?
        do {
            text = try FileSystem.readRegularFile(path, limit: 4096)
        } catch {
            logger.warning("cannot read the update progress \(path): \(error)")
            return
        }
        guard text != last else { return }
        last = text
        guard let text else { return }
        do {
            let progress = try UpdateProgress(parsing: text)
            if progress.phase == .failed {
                logger.warning("\(progress.summary)")
            } else {
                logger.info("\(progress.summary)")
            }
            await gateway.setUpdateProgress(progress)
        } catch {
            logger.warning("the update progress \(path) is not shown: \(error)")
        }
    }
}
