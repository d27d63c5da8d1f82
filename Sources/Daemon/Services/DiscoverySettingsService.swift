import Discovery
import SystemSupport

/// Hands `[discovery]` and the followed device to discovery whenever the
/// settings change (a reload): a smaller `max-devices` applies at once, and
/// a newly configured device is the one never dropped.
struct DiscoverySettingsService: Service {
    let name = "discovery-settings"
    let discovery: DeviceDiscovery
    let settings: StateBroadcaster<DaemonSettings>

    func run() async throws {
        for await current in settings.subscribe() {
            discovery.configure(current.discovery, keeping: current.keptDevices)
        }
    }
}
