import GatewayModel
import ServiceLifecycle
import SystemSupport

/// Powers the TV on when casting starts (selecting its input) and puts it in
/// standby once after the configured idle time, through the TV control (the
/// CEC source). State changes and the standby deadline are one stream of
/// events; the deadline runs on the gateway's clock, so tests drive it on a
/// manual clock.
public struct TVPowerService: Service {
    public let name = "tv-power"
    private let gateway: Gateway
    private let settings: TVPowerPolicy.Settings
    private let control: any TVControl
    private let logger = Logger(label: "tv-power")

    public init(gateway: Gateway, settings: TVPowerPolicy.Settings, control: any TVControl) {
        self.gateway = gateway
        self.settings = settings
        self.control = control
    }

    public func run() async throws {
        let clock = gateway.timeSource
        // nil events are "the deadline passed: look again".
        let (events, eventSink) = AsyncStream.makeStream(of: GatewayState?.self)
        let (deadlines, deadlineSink) = AsyncStream.makeStream(of: Duration.self, bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await state in gateway.states() { eventSink.yield(state) }
                eventSink.finish()
            }
            // Deadlines only move later (idle starts again after each cast), so
            // sleeping on them in turn never misses one; an early tick is harmless.
            group.addTask {
                for await deadline in deadlines {
                    guard (try? await clock.sleep(for: deadline - clock.now)) != nil else { return }
                    eventSink.yield(nil)
                }
            }
            var policy = TVPowerPolicy(settings)
            var latest = GatewayState()
            for await event in events {
                if let event { latest = event }
                if let command = policy.update(appRunning: latest.appID != nil, connected: latest.link == .connected, now: clock.now) {
                    switch command {
                    case .powerOn:
                        logger.notice("casting started: powering the TV on")
                        control.powerOnTV(selecting: settings.input)
                    case .standby:
                        logger.notice("nothing cast for a while: TV standby")
                        control.standbyTV()
                    }
                }
                if let due = policy.nextCheck(after: clock.now) { deadlineSink.yield(due) }
            }
            group.cancelAll()
        }
    }
}
