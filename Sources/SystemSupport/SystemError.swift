#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call: what was attempted and the `errno` it gave.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What was attempted, e.g. `connect to 192.168.1.20:8009`.
    public let operation: String
    public let errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// Captures the current thread's `errno`.
    public static func current(_ operation: String) -> SystemError {
        SystemError(operation, errno: Glibc.errno)
    }

    public var description: String {
        "\(operation): \(reason)"
    }

    /// strerror's text for `errno`, e.g. `No such file or directory`.
    public var reason: String { SystemError.reason(errno) }

    /// strerror's text for `code`.
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// The descriptor is non-blocking and the call would have waited (EAGAIN).
    public var wouldBlock: Bool { errno == EAGAIN || errno == EWOULDBLOCK }

    /// There is no such file (ENOENT).
    public var isNotFound: Bool { errno == ENOENT }
}
