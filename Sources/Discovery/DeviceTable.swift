import GatewayModel

/// The live table of Cast devices, built from browser events. A device seen
/// on several interfaces or over IPv4 and IPv6 appears once, preferring IPv4.
///
/// The table is bounded: past `maximumDevices` it drops the device announced
/// least recently (all its records), so a LAN with thousands of receivers, or
/// someone flooding it with fake ones, cannot grow it without end. Devices
/// matching a kept query (the one the gateway follows) are never dropped.
public struct DeviceTable: Sendable, Equatable {
    /// One record of a service: the interface and protocol it was resolved on.
    private struct Record: Hashable, Sendable {
        let interface: Int32
        let protocolFamily: Int32
    }

    private struct RecordID: Hashable, Sendable {
        let serviceName: String
        let record: Record
    }

    /// Every record of one service name, and the device they show.
    private struct Entry: Equatable, Sendable {
        var records: [Record: ResolvedService]
        /// The announcement count when the service was last resolved: lower is older.
        var lastAnnounced: UInt64
        var device: CastDevice
    }

    private var entries: [String: Entry] = [:]
    private var unconfirmed: Set<RecordID> = []
    private var announcements: UInt64 = 0
    public private(set) var problem: String?
    /// One entry per service name, IPv4 preferred, sorted by friendly name
    /// (kept sorted as events arrive: a burst of 500 announcements is not 500 sorts).
    public private(set) var devices: [CastDevice] = []
    /// The most devices held (at least 1); kept devices may exceed it.
    public private(set) var maximumDevices: Int
    /// Friendly names or ids (as in `[device]`) whose devices are never dropped.
    public private(set) var keptQueries: [String]
    /// What the last `apply` or `setLimits` dropped to stay within the bound, oldest first.
    public private(set) var dropped: [CastDevice] = []

    public init(maximumDevices: Int = DiscoverySettings.defaultMaximumDevices, keeping keptQueries: [String] = []) {
        self.maximumDevices = max(1, maximumDevices)
        self.keptQueries = keptQueries
    }

    /// How many devices the table holds.
    public var count: Int { entries.count }

    /// Whether the service `name` is in the table.
    public func contains(serviceName name: String) -> Bool { entries[name] != nil }

    public var snapshot: DiscoverySnapshot { DiscoverySnapshot(devices: devices, problem: problem) }

    /// Applies an event; returns whether the visible devices or problem changed.
    @discardableResult
    public mutating func apply(_ event: DiscoveryEvent) -> Bool {
        dropped = []
        var changed = false
        switch event {
        case .resolved(let service):
            announcements += 1
            let record = Record(interface: service.interface, protocolFamily: service.protocolFamily)
            var records = entries[service.serviceName]?.records ?? [:]
            records[record] = service
            changed = update(service.serviceName, records: records)
            entries[service.serviceName]?.lastAnnounced = announcements
            unconfirmed.remove(RecordID(serviceName: service.serviceName, record: record))
            if problem != nil {
                problem = nil
                changed = true
            }
            if dropOverflow() { changed = true }
        case .removed(let name, let interface, let protocolFamily):
            let record = Record(interface: interface, protocolFamily: protocolFamily)
            unconfirmed.remove(RecordID(serviceName: name, record: record))
            changed = remove(record, of: name)
        case .resynchronizing:
            unconfirmed = Set(entries.flatMap { name, entry in entry.records.keys.map { RecordID(serviceName: name, record: $0) } })
            if problem != nil {
                problem = nil
                changed = true
            }
        case .synchronized:
            for id in unconfirmed {
                if remove(id.record, of: id.serviceName) { changed = true }
            }
            unconfirmed = []
        case .unavailable(let message):
            if problem != message {
                problem = message
                changed = true
            }
        }
        return changed
    }

    /// Sets the bound and the kept devices (a reload); returns whether devices were dropped for it.
    @discardableResult
    public mutating func setLimits(maximumDevices: Int, keeping keptQueries: [String]) -> Bool {
        dropped = []
        self.maximumDevices = max(1, maximumDevices)
        self.keptQueries = keptQueries
        return dropOverflow()
    }

    /// Whether `device` is one the table must keep.
    public func isKept(_ device: CastDevice) -> Bool {
        keptQueries.contains { device.matches($0) }
    }

    // MARK: Internals

    /// Stores the records of `name` (none: removes it); returns whether its device changed.
    private mutating func update(_ name: String, records: [Record: ResolvedService]) -> Bool {
        let old = entries[name]
        guard let best = DeviceTable.best(of: records) else {
            entries[name] = nil
            if let old { replaceInOrder(old.device, with: nil) }
            return old != nil
        }
        let device = best.device
        entries[name] = Entry(records: records, lastAnnounced: old?.lastAnnounced ?? announcements, device: device)
        guard old?.device != device else { return false }
        replaceInOrder(old?.device, with: device)
        return true
    }

    private mutating func remove(_ record: Record, of name: String) -> Bool {
        guard var records = entries[name]?.records, records.removeValue(forKey: record) != nil else { return false }
        return update(name, records: records)
    }

    /// Drops the least recently announced devices that are not kept until
    /// the table is within its bound (or only kept devices remain).
    private mutating func dropOverflow() -> Bool {
        let excess = entries.count - maximumDevices
        guard excess > 0 else { return false }
        let kept = keptQueries
        let candidates = entries.lazy.filter { entry in !kept.contains { entry.value.device.matches($0) } }
        // One over (the usual case) is a scan; a lowered bound sorts once.
        let victims = excess == 1
            ? Array(candidates.min { $0.value.lastAnnounced < $1.value.lastAnnounced }.map { [$0] } ?? [])
            : Array(candidates.sorted { $0.value.lastAnnounced < $1.value.lastAnnounced }.prefix(excess))
        for (name, entry) in victims {
            entries[name] = nil
            replaceInOrder(entry.device, with: nil)
            dropped.append(entry.device)
        }
        return !victims.isEmpty
    }

    /// Keeps `devices` sorted: takes `old` out and puts `new` in its place in the order.
    private mutating func replaceInOrder(_ old: CastDevice?, with new: CastDevice?) {
        if let old {
            // Shown names are capped, so two services may share a sort key: find the very entry.
            let key = DeviceTable.sortKey(old)
            var index = position(of: key)
            while index < devices.count, DeviceTable.sortKey(devices[index]) == key {
                if devices[index] == old {
                    devices.remove(at: index)
                    break
                }
                index += 1
            }
        }
        if let new { devices.insert(new, at: position(of: DeviceTable.sortKey(new))) }
    }

    /// The first index whose device sorts at or after `key` (binary search).
    private func position(of key: (String, String)) -> Int {
        var low = 0, high = devices.count
        while low < high {
            let middle = low + (high - low) / 2
            if DeviceTable.sortKey(devices[middle]) < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func sortKey(_ device: CastDevice) -> (String, String) { (device.name.lowercased(), device.serviceName) }

    /// The record to show: IPv4 before IPv6, routable before link-local, then the lowest interface.
    private static func best(of records: [Record: ResolvedService]) -> ResolvedService? {
        records.values.min { (rank($0), $0.interface, $0.protocolFamily) < (rank($1), $1.interface, $1.protocolFamily) }
    }

    /// Lower is better: IPv4 before IPv6, and a routable address before a link-local one.
    private static func rank(_ service: ResolvedService) -> Int {
        var rank = service.host.contains(":") ? 2 : 0
        if service.host.lowercased().hasPrefix("fe80") || service.host.hasPrefix("169.254.") { rank += 1 }
        return rank
    }
}
