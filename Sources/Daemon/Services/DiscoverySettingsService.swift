import Discovery
import GatewayCore
import GatewayModel
import ServiceLifecycle
import Synchronization
import SystemSupport

/// Keeps discovery's bound and kept devices current: `[discovery]` and the
/// `[device]` name or id whenever the settings change (a reload: a smaller
/// `max-devices` applies at once), and the device the gateway controls now
/// (one picked with `use` or the next-device key), so a full table never
/// drops the receiver in use.
struct DiscoverySettingsService: Service {
    let name = "discovery-settings"
    let discovery: DeviceDiscovery
    let settings: StateBroadcaster<DaemonSettings>
    let gateway: Gateway

    func run() async throws {
        let inputs = Inputs(discovery: discovery, settings: settings.current)
        let settings = self.settings, gateway = self.gateway
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await new in settings.subscribe() { inputs.set(settings: new) }
            }
            group.addTask {
                for await state in gateway.states() { inputs.set(controlled: DiscoverySettingsService.controlledDevice(in: state)) }
            }
        }
    }

    /// The newest settings and controlled device, handed to discovery when either changes.
    private final class Inputs: Sendable {
        private let discovery: DeviceDiscovery
        private let current: Mutex<(settings: DaemonSettings, controlled: String?)>

        init(discovery: DeviceDiscovery, settings: DaemonSettings) {
            self.discovery = discovery
            current = Mutex((settings, nil))
        }

        func set(settings: DaemonSettings) {
            current.withLock { current in
                current.settings = settings
                apply(current)
            }
        }

        func set(controlled: String?) {
            current.withLock { current in
                guard current.controlled != controlled else { return }
                current.controlled = controlled
                apply(current)
            }
        }

        private func apply(_ current: (settings: DaemonSettings, controlled: String?)) {
            discovery.configure(current.settings.discovery,
                                keeping: DiscoverySettingsService.kept(current.settings, controlled: current.controlled))
        }
    }

    /// The id of the discovered device at the gateway's current address, if any.
    static func controlledDevice(in state: GatewayState) -> String? {
        guard !state.deviceAddress.isEmpty else { return nil }
        return state.devices.first { $0.address == state.deviceAddress }?.id
    }

    /// What discovery must never drop: the configured device, and the one controlled now.
    static func kept(_ settings: DaemonSettings, controlled: String?) -> [String] {
        var kept = settings.keptDevices
        if let controlled, !kept.contains(controlled) { kept.append(controlled) }
        return kept
    }
}
