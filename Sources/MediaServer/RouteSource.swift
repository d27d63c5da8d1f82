#if canImport(Glibc)
import Glibc
#endif

/// Which local address a receiver reaches the box by: the source address
/// the kernel picks for the route to the receiver. A UDP socket is
/// connect(2)ed (which only consults the routing table: no packet is sent)
/// and asked for its local address.
public enum RouteSource {
    /// The local address toward `receiver` (numeric IPv4/IPv6). Throws when
    /// there is no route (network down, address of another family only).
    public static func localAddress(toward receiver: String) throws -> String {
        guard let remote = ListenAddress(host: receiver, port: 8009) else {
            throw MediaServerError(.routeUnavailable,
                                   "cannot choose a listen address toward '\(receiver)': not a numeric IP address; resolve the receiver's name first")
        }
        let fd = socket(remote.isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw MediaServerError(.routeUnavailable, "cannot open a UDP socket to find the route to \(receiver): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let connected = remote.withSockaddr { connect(fd, $0, $1) }
        guard connected == 0 else {
            throw MediaServerError(.routeUnavailable,
                                   "no route to the receiver \(receiver) (\(String(cString: strerror(errno)))); check the network link and address")
        }
        guard let local = ListenAddress.local(of: fd) else {
            throw MediaServerError(.routeUnavailable, "cannot read the local address toward \(receiver): \(String(cString: strerror(errno)))")
        }
        return local.host
    }
}
