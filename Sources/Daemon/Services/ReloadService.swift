#if canImport(Glibc)
import Glibc
#endif
import ServiceLifecycle
import SystemSupport

/// `systemctl reload` (SIGHUP): re-reads the config file and applies it, and
/// the A/B update report (read once at start too).
struct ReloadService: Service {
    let name = "reload"
    let daemon: Daemon
    let signals: [Int32]

    func run() async throws {
        let reloads = SignalStream.watch(signals)
        await daemon.readUpdateReport()
        for await _ in reloads {
            _ = await daemon.reload()
        }
    }
}
