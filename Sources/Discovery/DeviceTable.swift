import GatewayModel

/// The live table of Cast devices, built from browser events. A device seen
/// on several interfaces or over IPv4 and IPv6 appears once, preferring IPv4.
public struct DeviceTable: Sendable, Equatable {
    private struct Key: Hashable {
        let serviceName: String
        let interface: Int32
        let protocolFamily: Int32
    }

    private var services: [Key: ResolvedService] = [:]
    private var unconfirmed: Set<Key> = []
    public private(set) var problem: String?

    public init() {}

    /// Applies an event; returns whether the visible devices or problem changed.
    @discardableResult
    public mutating func apply(_ event: DiscoveryEvent) -> Bool {
        let before = snapshot
        switch event {
        case .resolved(let service):
            let key = Key(serviceName: service.serviceName, interface: service.interface, protocolFamily: service.protocolFamily)
            services[key] = service
            unconfirmed.remove(key)
            problem = nil
        case .removed(let name, let interface, let protocolFamily):
            let key = Key(serviceName: name, interface: interface, protocolFamily: protocolFamily)
            services[key] = nil
            unconfirmed.remove(key)
        case .resynchronizing:
            unconfirmed = Set(services.keys)
            problem = nil
        case .synchronized:
            for key in unconfirmed { services[key] = nil }
            unconfirmed = []
        case .unavailable(let message):
            problem = message
        }
        return snapshot != before
    }

    /// One entry per service name, IPv4 preferred, sorted by friendly name.
    public var devices: [CastDevice] {
        var best: [String: ResolvedService] = [:]
        for service in services.values {
            if let current = best[service.serviceName], rank(current) <= rank(service) { continue }
            best[service.serviceName] = service
        }
        return best.values.map(\.device).sorted {
            ($0.name.lowercased(), $0.serviceName) < ($1.name.lowercased(), $1.serviceName)
        }
    }

    public var snapshot: DiscoverySnapshot { DiscoverySnapshot(devices: devices, problem: problem) }

    /// Lower is better: IPv4 before IPv6, and a routable address before a link-local one.
    private func rank(_ service: ResolvedService) -> Int {
        var rank = service.host.contains(":") ? 2 : 0
        if service.host.lowercased().hasPrefix("fe80") || service.host.hasPrefix("169.254.") { rank += 1 }
        return rank * 1000 + Int(max(service.interface, 0) % 1000)
    }
}
