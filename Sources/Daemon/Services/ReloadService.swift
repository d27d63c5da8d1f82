#if canImport(Glibc)
import Glibc
#endif
import ServiceLifecycle
import SystemSupport

/// `systemctl reload` (SIGHUP): re-reads the config file and applies it.
struct ReloadService: Service {
    let name = "reload"
    let daemon: Daemon
    let signals: [Int32]

    func run() async throws {
        for await _ in SignalStream.watch(signals) {
            _ = await daemon.reload()
        }
    }
}
