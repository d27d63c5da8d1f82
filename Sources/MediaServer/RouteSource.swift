#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

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
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.socket(family: remote.isIPv6 ? AF_INET6 : AF_INET, type: Int32(SOCK_DGRAM.rawValue))
        } catch {
            throw MediaServerError(.routeUnavailable, "cannot open a UDP socket to find the route to \(receiver): \(error.reason)")
        }
        defer { fd.close() }
        guard remote.withSockaddr({ connect(fd.rawValue, $0, $1) }) == 0 else {
            throw MediaServerError(.routeUnavailable,
                                   "no route to the receiver \(receiver) (\(SystemError.current("connect").reason)); check the network link and address")
        }
        guard let local = ListenAddress.local(of: fd.rawValue) else {
            throw MediaServerError(.routeUnavailable,
                                   "cannot read the local address toward \(receiver): \(SystemError.current("getsockname").reason)")
        }
        return local.host
    }
}
