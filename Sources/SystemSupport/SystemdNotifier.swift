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

    /// Sends `STATUS=text`, escaped so that a title from the network cannot
    /// add a line (and with it another sd_notify field such as `READY=1`).
    public func status(_ text: String) {
        send("STATUS=" + text.escapingControlCharacters(maximumLength: 200))
    }

    public func send(_ message: String) {
        guard let socketPath, !socketPath.isEmpty else { return }
        guard let fd = try? FileDescriptor.socket(family: AF_UNIX, type: Int32(SOCK_DGRAM.rawValue)) else { return }
        defer { fd.close() }
        let bytes = Array(message.utf8)
        _ = UnixSocket.withAddress(socketPath) { address, length in
            bytes.withUnsafeBytes { sendto(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
        }
    }
}
