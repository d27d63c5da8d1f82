import Dispatch
import GatewayModel
import ServiceLifecycle
import Synchronization
import SystemSupport

/// Cast devices on the network: the Avahi browser folded into a bounded
/// `DeviceTable`, published as `DiscoverySnapshot`s whenever they change.
/// A `Service`: it browses while it runs; made `onDemand`, only from the
/// first `browse()` on (a gateway with a fixed host needs no mDNS, nor
/// avahi-client and D-Bus in its memory, until 'devices' or 'use').
public final class DeviceDiscovery: Service, Sendable {
    public let name = "discovery"
    /// Whether browsing was asked for (always, unless made on demand).
    private let wanted: StateBroadcaster<Bool>
    private let broadcaster = StateBroadcaster(DiscoverySnapshot())
    private let logger = Logger(label: "discovery")
    /// The table, shared by the browsing loop and `configure` (a reload).
    private let state: Mutex<State>
    /// Up to this many devices, each one found is logged at info level; beyond, at debug.
    static let devicesLoggedAtInfo = 20

    private struct State: Sendable {
        var table: DeviceTable
        /// The bound for which the "table is full" notice was given.
        var noticedLimit: Int?
    }

    /// `keeping`: friendly names or ids of devices never dropped (the one the gateway follows).
    public init(settings: DiscoverySettings = DiscoverySettings(), keeping: [String] = [], onDemand: Bool = false) {
        wanted = StateBroadcaster(!onDemand)
        state = Mutex(State(table: DeviceTable(maximumDevices: settings.maximumDevices, keeping: keeping)))
    }

    /// Starts browsing, if made on demand and not yet browsing.
    public func browse() {
        guard !wanted.current else { return }
        wanted.publish(true)
    }

    /// Whether browsing was asked for.
    public var isBrowsing: Bool { wanted.current }

    /// The devices known now.
    public var current: DiscoverySnapshot { broadcaster.current }

    /// Snapshots, starting with the current one.
    public func snapshots() -> AsyncStream<DiscoverySnapshot> { broadcaster.subscribe() }

    /// The bound and the kept devices in force.
    public var limits: (maximumDevices: Int, keeping: [String]) {
        state.withLock { ($0.table.maximumDevices, $0.table.keptQueries) }
    }

    /// Applies new settings (a reload); a smaller bound drops devices at once.
    public func configure(_ settings: DiscoverySettings, keeping: [String]) {
        state.withLock { state in
            let table = state.table
            guard table.maximumDevices != settings.maximumDevices || table.keptQueries != keeping else { return }
            if state.table.setLimits(maximumDevices: settings.maximumDevices, keeping: keeping) {
                reportDrops(&state)
                broadcaster.publish(state.table.snapshot)
            }
        }
    }

    /// Browses until cancelled.
    public func run() async throws {
        for await browsing in wanted.subscribe() where browsing { break }
        guard !Task.isCancelled else { return }
        let browser: AvahiBrowser
        do {
            // Off the cooperative pool: the first one loads avahi-client (dlopen reads files).
            browser = try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(with: Result { try AvahiBrowser() }) }
            }
        } catch {
            // Shown as discovery's problem (status, 'devices', 'discover'), once.
            logger.error("mDNS discovery is not available: \(error)")
            state.withLock { state in
                _ = state.table.apply(.unavailable("\(error)"))
                broadcaster.publish(state.table.snapshot)
            }
            await waitUntilCancelled()
            return
        }
        let events = browser.events
        browser.start()
        defer { browser.stop() }
        for await event in events {
            // Published under the lock, so a concurrent `configure` cannot reorder snapshots.
            state.withLock { state in
                var found: ResolvedService?
                if case .resolved(let service) = event, !state.table.contains(serviceName: service.serviceName) {
                    found = service
                }
                guard state.table.apply(event) else { return }
                if let service = found, state.table.contains(serviceName: service.serviceName) {
                    let device = service.device
                    // A hotel LAN announces hundreds: past the first few, only the followed device is worth the journal.
                    let message = "found \"\(device.name)\" (\(device.model)) at \(device.address)"
                    if state.table.count <= DeviceDiscovery.devicesLoggedAtInfo || state.table.isKept(device) {
                        logger.info(message)
                    } else {
                        logger.debug(message)
                    }
                }
                reportDrops(&state)
                broadcaster.publish(state.table.snapshot)
            }
        }
    }

    /// One debug line per dropped device; one notice the first time the bound is reached.
    private func reportDrops(_ state: inout State) {
        let table = state.table
        guard !table.dropped.isEmpty else { return }
        if state.noticedLimit != table.maximumDevices {
            state.noticedLimit = table.maximumDevices
            logger.notice("the device table is full ([discovery] max-devices = \(table.maximumDevices)): "
                          + "the least recently announced devices are dropped to make room; raise max-devices if devices are missing")
        }
        for device in table.dropped {
            logger.debug("dropped \"\(device.name)\" (\(device.id)) at \(device.address): announced least recently")
        }
    }
}
