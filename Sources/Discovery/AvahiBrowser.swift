#if canImport(Glibc)
import Glibc
#endif
import CAvahi
import CAvahiShim
import SystemSupport

/// Browses `_googlecast._tcp` through avahi-daemon and reports resolved
/// services, removals and availability on `events`.
///
/// Resolvers are kept for as long as their service exists, so a changed
/// address, port or TXT record is reported again as `resolved`.
public final class AvahiBrowser: AvahiClientOwner, @unchecked Sendable {
    public static let castServiceType = "_googlecast._tcp"

    public let events: AsyncStream<DiscoveryEvent>
    private let continuation: AsyncStream<DiscoveryEvent>.Continuation
    private let serviceType: String
    /// Guarded by the poll lock.
    private var browser: OpaquePointer?
    private var resolvers: [String: OpaquePointer] = [:]

    public convenience init(serviceType: String = AvahiBrowser.castServiceType) throws {
        try self.init(serviceType: serviceType, retryBackoff: AvahiClientOwner.standardBackoff)
    }

    /// `retryBackoff` paces recreating a failed client (tests make it short).
    init(serviceType: String, retryBackoff: Backoff) throws {
        self.serviceType = serviceType
        (events, continuation) = AsyncStream.makeStream(of: DiscoveryEvent.self)
        try super.init(label: "discovery", backoff: retryBackoff)
    }

    // Stops while this class's properties still exist (the base class's deinit runs after they are gone).
    deinit { stop() }

    /// Starts browsing (and keeps trying while avahi-daemon is unavailable).
    public override func start() { super.start() }

    /// Stops browsing; `events` finishes.
    public override func stop() {
        super.stop()
        continuation.finish()
    }

    override func report(_ message: String) {
        continuation.yield(.unavailable(message))
    }

    override func clientRunning(_ client: OpaquePointer) {
        assertPollLockHeld()
        releaseObjects()
        continuation.yield(.resynchronizing)
        browser = cg_avahi_service_browser_new(
            client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), serviceType, nil, AvahiLookupFlags(rawValue: 0),
            { _, interface, protocolFamily, event, name, type, domain, _, userdata in
                guard let userdata else { return }
                let browser = Unmanaged<AvahiBrowser>.fromOpaque(userdata).takeUnretainedValue()
                browser.onPollThread { browser.browserEvent(interface, protocolFamily, event, name, type, domain) }
            }, Unmanaged.passUnretained(self).toOpaque())
        if browser == nil {
            report("cannot browse \(serviceType): \(String(cString: cg_avahi_strerror(cg_avahi_client_errno(client))))")
        }
    }

    override func releaseObjects() {
        assertPollLockHeld()
        for resolver in resolvers.values { cg_avahi_service_resolver_free(resolver) }
        resolvers.removeAll()
        if let browser { cg_avahi_service_browser_free(browser) }
        browser = nil
    }

    private static func key(_ name: String, _ interface: Int32, _ protocolFamily: Int32) -> String {
        "\(interface)|\(protocolFamily)|\(name)"
    }

    private func browserEvent(_ interface: AvahiIfIndex, _ protocolFamily: AvahiProtocol, _ event: AvahiBrowserEvent,
                              _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?) {
        assertPollLockHeld()
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name, let type, let domain, let client else { return }
            let key = AvahiBrowser.key(String(cString: name), interface, protocolFamily)
            guard resolvers[key] == nil else { return }
            let resolver = cg_avahi_service_resolver_new(
                client, interface, protocolFamily, name, type, domain, protocolFamily, AvahiLookupFlags(rawValue: 0),
                { resolver, interface, protocolFamily, event, name, _, _, _, address, port, txt, _, userdata in
                    guard let userdata else { return }
                    let browser = Unmanaged<AvahiBrowser>.fromOpaque(userdata).takeUnretainedValue()
                    browser.onPollThread {
                        browser.resolverEvent(resolver, interface, protocolFamily, event, name, address, port, txt)
                    }
                }, Unmanaged.passUnretained(self).toOpaque())
            if let resolver { resolvers[key] = resolver }
        case AVAHI_BROWSER_REMOVE:
            guard let name else { return }
            let serviceName = String(cString: name)
            if let resolver = resolvers.removeValue(forKey: AvahiBrowser.key(serviceName, interface, protocolFamily)) {
                cg_avahi_service_resolver_free(resolver)
            }
            continuation.yield(.removed(serviceName: serviceName, interface: interface, protocolFamily: protocolFamily))
        case AVAHI_BROWSER_ALL_FOR_NOW:
            continuation.yield(.synchronized)
        case AVAHI_BROWSER_FAILURE:
            let reason = client.map { String(cString: cg_avahi_strerror(cg_avahi_client_errno($0))) } ?? "unknown"
            report("browsing \(serviceType) failed: \(reason)")
        default:
            break
        }
    }

    private func resolverEvent(_ resolver: OpaquePointer?, _ interface: AvahiIfIndex, _ protocolFamily: AvahiProtocol,
                               _ event: AvahiResolverEvent, _ name: UnsafePointer<CChar>?, _ address: UnsafePointer<AvahiAddress>?,
                               _ port: UInt16, _ txt: UnsafeMutablePointer<AvahiStringList>?) {
        guard let name else { return }
        let serviceName = String(cString: name)
        guard event == AVAHI_RESOLVER_FOUND, let address else {
            logger.debug("could not resolve \(serviceName)")
            return
        }
        var buffer = [CChar](repeating: 0, count: 64)
        cg_avahi_address_snprint(&buffer, buffer.count, address)
        var host = String(nullTerminated: buffer)
        if host.lowercased().hasPrefix("fe80"), interface > 0 {
            var interfaceName = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
            if if_indextoname(UInt32(interface), &interfaceName) != nil { host += "%" + String(nullTerminated: interfaceName) }
        }
        var entries: [String] = []
        var item = txt
        while let current = item {
            let size = cg_avahi_string_list_get_size(current)
            if let text = cg_avahi_string_list_get_text(current) {
                entries.append(String(decoding: UnsafeBufferPointer(start: text, count: size), as: UTF8.self))
            }
            item = cg_avahi_string_list_get_next(current)
        }
        continuation.yield(.resolved(ResolvedService(
            serviceName: serviceName, interface: interface, protocolFamily: protocolFamily, host: host, port: port,
            txt: ResolvedService.parseTXT(entries))))
    }
}
