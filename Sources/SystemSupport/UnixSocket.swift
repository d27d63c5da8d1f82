#if canImport(Glibc)
import Glibc
#endif

/// AF_UNIX socket addresses and connections (lircd, sd_notify, test peers).
public enum UnixSocket {
    /// Runs `body` with a `sockaddr_un` for `path` (a leading `@` names the
    /// abstract namespace); nil when the path does not fit.
    public static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    /// A connected, blocking stream socket to `path`; the socket is closed
    /// when connect fails.
    public static func connect(to path: String) throws(SystemError) -> FileDescriptor {
        let fd = try FileDescriptor.socket(family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), operation: "socket for \(path)")
        // Not retried on EINTR: the connection then goes on without us, and a second connect fails (EALREADY).
        guard (withAddress(path) { Glibc.connect(fd.rawValue, $0, $1) } ?? -1) == 0 else {
            let error = SystemError.current("connect to \(path)")
            fd.close()
            throw error
        }
        return fd
    }

    /// `connect(to:)`'s raw descriptor (test peers and tools that hold an Int32).
    public static func connectStream(to path: String) throws -> Int32 {
        try connect(to: path).rawValue
    }
}
