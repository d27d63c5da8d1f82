#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SystemSupport

/// Who gets one of the daemon's connections.
///
/// libmicrohttpd stops accepting once its connection limit is reached, and
/// then the receiver's own fetches wait in the listen queue behind whoever
/// holds the slots: 200 slowloris clients from other addresses did exactly
/// that. So hosts other than the receiver may hold only `othersLimit`
/// connections together, fewer than the daemon's limit; the rest is a
/// reserve only the receiver's address can use, and the daemon never reaches
/// its limit because of others. A new connection from another host beyond
/// that is closed at once (the accept policy callback); the connection
/// notifications count them. Both callbacks run on MHD's one thread; the
/// lock is for the receiver's address, which moves with the receiver.
final class ConnectionAdmission: Sendable {
    private struct State {
        /// The receiver's address bytes (4 or 16), or nil when none is known.
        var receiver: [UInt8]?
        var others = 0
        /// In an episode of refusals (logged once, at its start).
        var refusing = false
    }

    let othersLimit: Int
    private let port: UInt16
    private let state = Mutex(State())
    private let logger = Logger(label: "media-server")

    init(othersLimit: UInt32, port: UInt16) {
        self.othersLimit = Int(othersLimit)
        self.port = port
    }

    /// The receiver's numeric address; nil: no receiver known (every host
    /// then shares the others' budget).
    func setReceiver(_ host: String?) {
        let bytes = host.flatMap { ListenAddress(host: $0, port: 0) }.flatMap { address in
            address.withSockaddr { sockaddr, _ in ConnectionAdmission.hostBytes(sockaddr) }
        }
        state.withLock { $0.receiver = bytes }
    }

    /// Open connections from hosts other than the receiver.
    var othersOpen: Int { state.withLock { $0.others } }

    /// Whether to accept a connection from `address` (before it is set up).
    func admit(_ address: UnsafePointer<sockaddr>?) -> Bool {
        let host = address.flatMap(ConnectionAdmission.hostBytes)
        let (allowed, firstRefusal, open) = state.withLock { state -> (Bool, Bool, Int) in
            let allowed = (host != nil && host == state.receiver) || state.others < othersLimit
            let first = !allowed && !state.refusing
            if first { state.refusing = true }
            return (allowed, first, state.others)
        }
        if firstRefusal {
            let from = address.flatMap { ListenAddress.host(of: $0) } ?? "?"
            logger.warning("media server port \(port): \(open) connections from hosts other than the receiver are open, "
                + "the most allowed; refusing more (the first from \(from)) until some close. The receiver is still served; "
                + "if no other host should fetch media, find the one flooding the port")
        }
        return allowed
    }

    /// A connection was set up; returns whether it counts as another host's.
    func started(_ address: UnsafePointer<sockaddr>?) -> Bool {
        let host = address.flatMap(ConnectionAdmission.hostBytes)
        return state.withLock { state in
            guard host == nil || host != state.receiver else { return false }
            state.others += 1
            return true
        }
    }

    /// A connection counted by `started` closed.
    func closedOther() {
        let ended = state.withLock { state -> Bool in
            state.others = max(0, state.others - 1)
            // Hysteresis: a new episode (and message) only after the pressure eased.
            guard state.refusing, state.others <= othersLimit / 2 else { return false }
            state.refusing = false
            return true
        }
        if ended { logger.info("media server port \(port): connections from other hosts are below the limit again") }
    }

    /// The address bytes of an IPv4 or IPv6 socket address; an IPv4-mapped
    /// IPv6 address gives its IPv4 bytes, so both spellings match.
    static func hostBytes(_ address: UnsafePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                withUnsafeBytes(of: v4.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                withUnsafeBytes(of: v6.pointee.sin6_addr) { Array($0) }
            }
            if bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] { return Array(bytes.suffix(4)) }
            return bytes
        default:
            return nil
        }
    }
}
