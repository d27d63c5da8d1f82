import GatewayModel
import SystemSupport

/// Cast devices on the network: the Avahi browser folded into a
/// `DeviceTable`, published as `DiscoverySnapshot`s whenever they change.
public final class DeviceDiscovery: Sendable {
    private let browser: AvahiBrowser
    private let broadcaster = StateBroadcaster(DiscoverySnapshot())
    private let logger = Logger(label: "discovery")

    public init() throws {
        browser = try AvahiBrowser()
    }

    /// The devices known now.
    public var current: DiscoverySnapshot { broadcaster.current }

    /// Snapshots, starting with the current one.
    public func snapshots() -> AsyncStream<DiscoverySnapshot> { broadcaster.subscribe() }

    /// Starts browsing; runs until `stop()`.
    public func start() {
        let events = browser.events
        let broadcaster = self.broadcaster
        let logger = self.logger
        Task {
            var table = DeviceTable()
            for await event in events {
                let before = Set(table.devices.map(\.serviceName))
                guard table.apply(event) else { continue }
                for device in table.devices where !before.contains(device.serviceName) {
                    logger.info("found \"\(device.name)\" (\(device.model)) at \(device.address)")
                }
                broadcaster.publish(table.snapshot)
            }
        }
        browser.start()
    }

    public func stop() {
        browser.stop()
    }
}
