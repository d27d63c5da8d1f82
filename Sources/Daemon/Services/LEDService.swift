import GatewayCore
import GatewayModel
import ServiceLifecycle
import StatusOutput
import SystemSupport

/// Shows the gateway's state on the GPIO LEDs. Claims the configured lines
/// (a missing one is one warning naming it; the gateway runs on without that
/// LED) and switches every LED off and releases it on stop.
struct LEDService: Service {
    let name = "leds"
    let settings: LEDSettings
    let gateway: Gateway
    let timeSource: any TimeSource

    func run() async throws {
        let logger = Logger(label: "leds")
        var lines: [LEDRole: any LEDLine] = [:]
        for (role, spec) in settings.lines.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            do {
                lines[role] = try GPIOLEDLine(spec)
            } catch {
                logger.warning("\(role.rawValue) LED disabled: \(error)")
            }
        }
        guard !lines.isEmpty else { return await waitUntilCancelled() }
        let panel = LEDPanel(lines: lines, timeSource: timeSource)
        await panel.show(LEDPattern.patterns(for: await gateway.state, starting: true, inputMissing: false))
        for await state in gateway.states() {
            await panel.show(LEDPattern.patterns(for: state, starting: false, inputMissing: !state.inputProblems.isEmpty))
        }
        await panel.shutdown()
    }
}
