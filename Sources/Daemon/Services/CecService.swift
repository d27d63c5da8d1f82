import GatewayCore
import GatewayModel
import RemoteInput
import ServiceLifecycle
import SystemSupport

/// The CEC adapter (reopened with backoff) and, when configured, the TV
/// power policy that uses it. The gateway's `tv-on` / `tv-standby` go to
/// this adapter while it runs.
struct CecService: Service {
    let name = "cec"
    let settings: CecSettings
    let expected: Bool
    let gateway: Gateway
    let sink: InputSink
    let timeSource: any TimeSource

    func run() async throws {
        let source = CecSource(settings: settings, sink: sink)
        await gateway.setTVControl(source)
        let expected = self.expected, gateway = self.gateway
        let adapter = source.service(timeSource: timeSource) { problem in
            if expected { await gateway.setInputProblem(problem, for: "cec") }
        }
        // Either part failing is the service's failure (the group reports and restarts it);
        // the TV control is withdrawn on every way out.
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await adapter.run() }
                if settings.tvPower.isActive {
                    let policy = TVPowerService(gateway: gateway, settings: settings.tvPower, control: source)
                    group.addTask { try await policy.run() }
                }
                try await group.waitForAll()
            }
        } catch {
            await gateway.setTVControl(nil)
            throw error
        }
        await gateway.setTVControl(nil)
        await gateway.setInputProblem(nil, for: "cec")
    }
}
