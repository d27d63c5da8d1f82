import GatewayCore
import ServiceLifecycle
import SystemSupport

/// Talks to systemd (`Type=notify`): READY=1 once every other service has
/// started (it starts last), WATCHDOG=1 at half the `WatchdogSec` interval
/// but only after the gateway's actor has answered (a stuck core stops the
/// pings and systemd restarts the service), and STOPPING=1 first thing on
/// shutdown (it stops first).
struct NotifierService: Service {
    let name = "notifier"
    let notifier: SystemdNotifier
    let gateway: Gateway
    let timeSource: any TimeSource
    /// `WATCHDOG_USEC` from systemd; nil without a watchdog.
    let watchdogInterval: Duration?

    func run() async throws {
        notifier.send("READY=1")
        defer { notifier.send("STOPPING=1") }
        guard let interval = watchdogInterval, interval > .zero else {
            return await waitUntilCancelled()
        }
        while !Task.isCancelled {
            _ = await gateway.state  // the core's actor answers: the event loop is healthy
            notifier.send("WATCHDOG=1")
            guard (try? await timeSource.sleep(for: interval / 2)) != nil else { return }
        }
    }

}
