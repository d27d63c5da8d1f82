import GatewayModel
import SystemSupport

/// Cast devices on the network: the Avahi browser folded into a
/// `DeviceTable`, published as `DiscoverySnapshot`s whenever they change.
/// A `Service`: it browses while it runs.
public final class DeviceDiscovery: Service, Sendable {
    public let name = "discovery"
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

    /// Browses until cancelled.
    public func run() async throws {
        let events = browser.events
        browser.start()
        defer { browser.stop() }
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
}
