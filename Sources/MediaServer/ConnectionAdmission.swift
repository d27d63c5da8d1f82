#if canImport(Glibc)
import Glibc
#endif
import Dispatch
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
///
/// Slow clients: MHD's idle timeout restarts with every byte, so one header
/// byte a second holds a connection for ever. Another host's connection must
/// therefore deliver its request head within `headDeadline` of connecting,
/// or its socket is shut down (MHD then closes it); and it serves one
/// request only (`Connection: close`), so that deadline covers every head it
/// sends. A timer on a private queue is armed only while such heads are
/// pending. Shutting a socket down happens under the lock, and MHD tells of
/// a close (which removes the entry under the same lock) before it closes
/// the descriptor, so a descriptor number reused elsewhere is never touched.
final class ConnectionAdmission: Sendable {
    private struct Pending {
        let fd: Int32
        let deadline: DispatchTime
    }

    private struct State {
        /// The receiver's address bytes (4 or 16), or nil when none is known.
        var receiver: [UInt8]?
        var others = 0
        /// In an episode of refusals (logged once, at its start).
        var refusing = false
        /// Other hosts' connections whose request head has not arrived, by connection.
        var pending: [UInt: Pending] = [:]
        /// When the timer fires next, if it is armed.
        var armed: DispatchTime?
        /// The last time slow heads were cut off (for one log line a minute, not one a cut).
        var lastCut: DispatchTime?
    }

    let othersLimit: Int
    private let headDeadline: UInt32
    private let port: UInt16
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "media-server.head-deadline")
    private let timer: UncheckedSendable<any DispatchSourceTimer>
    private let logger = Logger(label: "media-server")

    /// `headDeadlineSeconds` 0: no deadline.
    init(othersLimit: UInt32, headDeadlineSeconds: UInt32, port: UInt16) {
        self.othersLimit = Int(othersLimit)
        headDeadline = headDeadlineSeconds
        self.port = port
        let timer = DispatchSource.makeTimerSource(queue: queue)
        self.timer = UncheckedSendable(timer)
        timer.setEventHandler { [weak self] in self?.expire() }
        timer.schedule(deadline: .distantFuture)
        timer.activate()
    }

    /// Stops the timer; call after MHD_stop_daemon returned.
    func shutdown() {
        timer.value.cancel()
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

    /// A connection was set up; returns whether it counts as another host's
    /// (and then its request head is awaited until the deadline).
    func started(_ connection: OpaquePointer, address: UnsafePointer<sockaddr>?, fd: Int32) -> Bool {
        let host = address.flatMap(ConnectionAdmission.hostBytes)
        let deadline = DispatchTime.now() + .seconds(Int(headDeadline))
        return state.withLock { state in
            guard host == nil || host != state.receiver else { return false }
            state.others += 1
            guard headDeadline > 0, fd >= 0 else { return true }
            state.pending[UInt(bitPattern: connection)] = Pending(fd: fd, deadline: deadline)
            if state.armed.map({ deadline < $0 }) ?? true {
                // Under the lock, so that arming and `expire` re-arming cannot cross.
                state.armed = deadline
                timer.value.schedule(deadline: deadline, leeway: .milliseconds(100))
            }
            return true
        }
    }

    /// A request head arrived on `connection`; returns whether it is another
    /// host's (whose connection then serves this request only).
    func requestArrived(_ connection: OpaquePointer, address: UnsafePointer<sockaddr>?) -> Bool {
        let host = address.flatMap(ConnectionAdmission.hostBytes)
        return state.withLock { state in
            state.pending[UInt(bitPattern: connection)] = nil
            return host == nil || host != state.receiver
        }
    }

    /// A connection counted by `started` closed.
    func closedOther(_ connection: OpaquePointer) {
        let ended = state.withLock { state -> Bool in
            state.pending[UInt(bitPattern: connection)] = nil
            state.others = max(0, state.others - 1)
            // Hysteresis: a new episode (and message) only after the pressure eased.
            guard state.refusing, state.others <= othersLimit / 2 else { return false }
            state.refusing = false
            return true
        }
        if ended { logger.info("media server port \(port): connections from other hosts are below the limit again") }
    }

    /// On the timer's queue: shuts down the sockets of overdue heads, and
    /// arms the timer for the next deadline (or not at all).
    private func expire() {
        let now = DispatchTime.now()
        let (expired, news) = state.withLock { state -> (Int, Bool) in
            var expired = 0
            for (key, pending) in state.pending where pending.deadline <= now {
                // Under the lock: the descriptor is still MHD's (see above).
                _ = Glibc.shutdown(pending.fd, Int32(SHUT_RDWR))
                state.pending[key] = nil
                expired += 1
            }
            state.armed = state.pending.values.map(\.deadline).min()
            timer.value.schedule(deadline: state.armed ?? .distantFuture, leeway: .milliseconds(100))
            guard expired > 0 else { return (0, false) }
            let news = state.lastCut.map { now.uptimeNanoseconds - $0.uptimeNanoseconds > 60_000_000_000 } ?? true
            if news { state.lastCut = now }
            return (expired, news)
        }
        guard expired > 0 else { return }
        let message = "media server port \(port): closed \(expired) connection(s) from hosts other than the receiver "
            + "that sent no complete request within \(headDeadline) s (a slow or stuck client, or a slowloris attack)"
        if news { logger.info(message + "; more within a minute are logged at debug level") } else { logger.debug(message) }
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
