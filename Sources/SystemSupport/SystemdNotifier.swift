#if canImport(Glibc)
import Glibc
#endif

/// Sends sd_notify(3) messages (`READY=1`, `STATUS=...`, `STOPPING=1`) to
/// systemd over `NOTIFY_SOCKET`, without linking libsystemd. Does nothing when
/// not started by systemd with `Type=notify`.
public struct SystemdNotifier: Sendable {
    private let socketPath: String?

    public init() {
        socketPath = getenv("NOTIFY_SOCKET").map { String(cString: $0) }
    }

    public func send(_ message: String) {
        guard let socketPath, !socketPath.isEmpty else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { addressPointer in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), addressPointer, length) }
            }
        }
    }
}
