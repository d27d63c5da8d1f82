import CAvahi
import CAvahiShim
import SystemSupport

/// Publishes one `_googlecast._tcp` service (the receiver simulator's
/// `--publish`), re-registering it whenever avahi-daemon comes back and
/// picking an alternative name on a collision.
public final class AvahiPublisher: AvahiClientOwner, @unchecked Sendable {
    private var name: String
    private let port: UInt16
    private let txt: [String]
    private let serviceType: String
    /// Guarded by the poll lock.
    private var group: OpaquePointer?

    /// `txt` entries are `key=value` strings.
    public init(name: String, port: UInt16, txt: [String], serviceType: String = AvahiBrowser.castServiceType) throws {
        self.name = name
        self.port = port
        self.txt = txt
        self.serviceType = serviceType
        try super.init(label: "mdns-publish")
    }

    // Stops while this class's properties still exist (the base class's deinit runs after they are gone).
    deinit { stop() }

    public override func start() { super.start() }

    /// Withdraws the service (sends the goodbye) and stops.
    public override func stop() { super.stop() }

    override func report(_ message: String) {
        logger.warning("cannot publish \"\(name)\": \(message)")
    }

    override func releaseObjects() {
        assertPollLockHeld()
        if let group { cg_avahi_entry_group_free(group) }
        group = nil
    }

    override func clientRunning(_ client: OpaquePointer) {
        assertPollLockHeld()
        releaseObjects()
        guard let group = cg_avahi_entry_group_new(client, { _, state, userdata in
            guard let userdata else { return }
            let publisher = Unmanaged<AvahiPublisher>.fromOpaque(userdata).takeUnretainedValue()
            publisher.onPollThread { publisher.groupStateChanged(state) }
        }, Unmanaged.passUnretained(self).toOpaque()) else {
            report(String(cString: cg_avahi_strerror(cg_avahi_client_errno(client))))
            return
        }
        self.group = group
        register(on: client, group: group)
    }

    private func register(on client: OpaquePointer, group: OpaquePointer) {
        var list: UnsafeMutablePointer<AvahiStringList>?
        for entry in txt.reversed() { list = cg_avahi_string_list_add(list, entry) }
        defer { cg_avahi_string_list_free(list) }
        let added = cg_avahi_entry_group_add_service_strlst(
            group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(rawValue: 0),
            name, serviceType, nil, nil, port, list)
        guard added == 0, cg_avahi_entry_group_commit(group) == 0 else {
            report(String(cString: cg_avahi_strerror(cg_avahi_client_errno(client))))
            return
        }
        logger.info("publishing \"\(name)\" (\(serviceType)) on port \(port)")
    }

    private func groupStateChanged(_ state: AvahiEntryGroupState) {
        assertPollLockHeld()
        guard state == AVAHI_ENTRY_GROUP_COLLISION, let group, let client else { return }
        let alternative = cg_avahi_alternative_service_name(name)
        let previous = name
        if let alternative {
            name = String(cString: alternative)
            cg_avahi_free(alternative)
        }
        logger.warning("the name \"\(previous)\" is taken on the network; publishing as \"\(name)\"")
        cg_avahi_entry_group_reset(group)
        register(on: client, group: group)
    }
}
