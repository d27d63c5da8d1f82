import GatewayCore
import GatewayModel
import ServiceLifecycle
import StatusOutput
import SystemSupport

/// Announces meaningful state changes once each: a log line, the sd_notify
/// STATUS, and a push for the serial console (text and JSON).
struct StatusReporterService: Service {
    let name = "status"
    let gateway: Gateway
    let notifier: SystemdNotifier
    let pushes: StateBroadcaster<SerialConsole.Push?>
    private let logger = Logger(label: "main")

    init(gateway: Gateway, notifier: SystemdNotifier, pushes: StateBroadcaster<SerialConsole.Push?>) {
        self.gateway = gateway
        self.notifier = notifier
        self.pushes = pushes
    }

    func run() async throws {
        var announcer = StatusAnnouncer()
        for await state in gateway.states() {
            let now = gateway.timeSource.now.seconds
            guard let line = announcer.announcement(for: state, now: now) else { continue }
            logger.notice(line)
            notifier.status(line)
            pushes.publish(SerialConsole.Push(text: line, json: StatusLine.json(state, now: now)))
        }
    }
}
