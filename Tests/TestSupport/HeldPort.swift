#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 held by a listening socket, as another program
/// would hold it: nothing else can bind it (the kernel hands it to no
/// `port 0` bind either) until `close()`.
public struct HeldPort: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let fd: Int32
    public let port: UInt16

    /// `port` 0: a free one. SO_REUSEADDR lets it take a port whose last
    /// connections are still in TIME_WAIT, as a restarted server could.
    public init(_ port: UInt16 = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 8) == 0
                && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            Glibc.close(fd)
            throw Failure(description: "cannot hold port \(port) on 127.0.0.1: \(reason)")
        }
        self.fd = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    public func close() { _ = Glibc.close(fd) }
}
