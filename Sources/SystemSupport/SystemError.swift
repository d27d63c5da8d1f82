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
        "\(operation): \(String(cString: strerror(errno)))"
    }
}
