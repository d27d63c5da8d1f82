import GatewayCore
import GatewayModel
import RemoteInput
import ServiceLifecycle
import SystemSupport

/// The CEC adapter (reopened with backoff) and the TV machine that follows
/// the TV on its bus and uses it (power policy, reactions, system audio).
/// The gateway's `tv on` / `tv standby` / `tv input` go through the machine
/// while it runs.
struct CecService: Service {
    let name = "cec"
    let settings: CecSettings
    let expected: Bool
    let gateway: Gateway
    let sink: InputSink
    let timeSource: any TimeSource

    func run() async throws {
        let (busEvents, bus) = AsyncStream.makeStream(of: TVBusEvent.self, bufferingPolicy: .bufferingNewest(256))
        let source = CecSource(settings: settings, sink: sink, bus: bus)
        let configuration = TVMachineConfiguration(power: settings.tvPower, reactions: settings.reactions,
                                                   audioSystem: settings.role == .audioSystem)
        let machine = TVService(gateway: gateway, configuration: configuration, device: source, busEvents: busEvents)
        await gateway.setTVControl(machine.control)
        let expected = self.expected, gateway = self.gateway
        let adapter = source.service(timeSource: timeSource) { problem in
            if expected { await gateway.setInputProblem(problem, for: "cec") }
        }
        // Either part failing is the service's failure (the group reports and restarts it);
        // the TV control is withdrawn on every way out.
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    defer { bus.finish() }
                    try await adapter.run()
                }
                group.addTask { try await machine.run() }
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
