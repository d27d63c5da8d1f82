#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file descriptor, as swift-system has it: the one place that calls
/// open/read/write/close and friends. Every call retries EINTR itself and
/// throws a `SystemError` naming the call and the file, so callers never read
/// `errno`. Opened descriptors are always close-on-exec.
///
/// A value type, so ownership is by convention: whoever opened it (or was
/// handed it, such as `FileDescriptorReader` with `owned`) closes it, once.
public struct FileDescriptor: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static let standardInput = FileDescriptor(rawValue: 0)
    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)

    public var description: String { "fd \(rawValue)" }

    /// How a file is opened for reading and writing.
    public enum Access: Sendable {
        case readOnly, writeOnly, readWrite

        var flags: Int32 {
            switch self {
            case .readOnly: O_RDONLY
            case .writeOnly: O_WRONLY
            case .readWrite: O_RDWR
            }
        }
    }

    /// open(2) flags beyond the access mode (O_CLOEXEC is always set).
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// Reads and writes return at once instead of waiting (and so does
        /// open itself: a FIFO does not wait for a writer).
        public static let nonBlocking = Options(rawValue: O_NONBLOCK)
        /// A terminal opened never becomes the controlling terminal.
        public static let noControllingTerminal = Options(rawValue: O_NOCTTY)
        /// Fails (ELOOP) when the last component is a symbolic link.
        public static let noFollow = Options(rawValue: O_NOFOLLOW)
        /// Fails unless the path is a directory.
        public static let directory = Options(rawValue: O_DIRECTORY)
        public static let create = Options(rawValue: O_CREAT)
        public static let truncate = Options(rawValue: O_TRUNC)
    }

    /// Opens `path`. A failure is a `SystemError` whose operation is
    /// `operation` (by default `open PATH`).
    public static func open(_ path: String, _ access: Access, options: Options = [], permissions: mode_t = 0o644,
                            operation: String? = nil) throws(SystemError) -> FileDescriptor {
        let flags = access.flags | options.rawValue | O_CLOEXEC
        while true {
            let fd = Glibc.open(path, flags, permissions)
            if fd >= 0 { return FileDescriptor(rawValue: fd) }
            if errno == EINTR { continue }
            throw SystemError.current(operation ?? "open \(path)")
        }
    }

    /// A new socket (close-on-exec; `nonBlocking` as asked).
    public static func socket(family: Int32, type: Int32, nonBlocking: Bool = false,
                              operation: String = "socket") throws(SystemError) -> FileDescriptor {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = Glibc.socket(family, type | flags, 0)
        guard fd >= 0 else { throw SystemError.current(operation) }
        return FileDescriptor(rawValue: fd)
    }

    /// Reads at most `buffer.count` bytes: the count read, 0 at end of file.
    /// On a non-blocking descriptor with nothing to read it throws a
    /// `SystemError` whose `wouldBlock` is true.
    public func read(into buffer: UnsafeMutableRawBufferPointer, operation: @autoclosure () -> String = "read") throws(SystemError) -> Int {
        while true {
            let count = Glibc.read(rawValue, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw SystemError.current(operation())
        }
    }

    /// `read(into:)` into the whole of `buffer`.
    public func read(into buffer: inout [UInt8], operation: @autoclosure () -> String = "read") throws(SystemError) -> Int {
        // A typed-throws closure cannot be passed through withUnsafeMutableBytes in Swift 6.0.
        let outcome: Result<Int, SystemError> = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemError) -> Int in try read(into: bytes, operation: operation()) }
        }
        return try outcome.get()
    }

    /// Writes what the kernel takes of `bytes` in one call: the count written.
    public func write(_ bytes: UnsafeRawBufferPointer, operation: @autoclosure () -> String = "write") throws(SystemError) -> Int {
        while true {
            let count = Glibc.write(rawValue, bytes.baseAddress, bytes.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw SystemError.current(operation())
        }
    }

    /// `write(_:)` of the bytes of `bytes`.
    public func write(_ bytes: [UInt8], operation: @autoclosure () -> String = "write") throws(SystemError) -> Int {
        let outcome: Result<Int, SystemError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) -> Int in try write(buffer, operation: operation()) }
        }
        return try outcome.get()
    }

    /// Writes all of `bytes`, however many calls it takes (a blocking descriptor).
    public func writeAll(_ bytes: [UInt8], operation: @autoclosure () -> String = "write") throws(SystemError) {
        let outcome: Result<Void, SystemError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in
                var offset = 0
                while offset < buffer.count {
                    offset += try write(UnsafeRawBufferPointer(rebasing: buffer[offset...]), operation: operation())
                }
            }
        }
        try outcome.get()
    }

    /// Closes the descriptor. Not retried on EINTR: on Linux the descriptor
    /// is gone either way, and a retry could close a reused number.
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// Runs `body`, then closes the descriptor, whatever `body` did.
    public func closeAfter<R>(_ body: () throws -> R) rethrows -> R {
        defer { close() }
        return try body()
    }

    /// Sets O_NONBLOCK.
    public func setNonBlocking(operation: @autoclosure () -> String = "make non-blocking") throws(SystemError) {
        let flags = fcntl(rawValue, F_GETFL)
        guard flags >= 0, fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) == 0 else { throw SystemError.current(operation()) }
    }

    /// A second descriptor for the same open file (close-on-exec).
    public func duplicate(operation: @autoclosure () -> String = "dup") throws(SystemError) -> FileDescriptor {
        let copy = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw SystemError.current(operation()) }
        return FileDescriptor(rawValue: copy)
    }

    /// ioctl(2) with an integer argument, e.g. EVIOCGRAB.
    public func control(_ request: UInt, _ argument: Int32, operation: @autoclosure () -> String = "ioctl") throws(SystemError) {
        while ioctl(rawValue, request, argument) != 0 {
            if errno == EINTR { continue }
            throw SystemError.current(operation())
        }
    }

    /// fsync(2): the file's data and metadata reach storage.
    public func sync(operation: @autoclosure () -> String = "fsync") throws(SystemError) {
        while fsync(rawValue) != 0 {
            if errno == EINTR { continue }
            throw SystemError.current(operation())
        }
    }

    /// fstat(2).
    public func status(operation: @autoclosure () -> String = "fstat") throws(SystemError) -> stat {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw SystemError.current(operation()) }
        return info
    }

    /// Whether a read would return at once (data, end of file or an error).
    public var hasInput: Bool {
        var entry = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents != 0
    }

    /// Accepts a connection on a listening socket: made non-blocking and
    /// close-on-exec, with the peer's address; nil when none is waiting.
    public func accept(operation: @autoclosure () -> String = "accept") throws(SystemError) -> (FileDescriptor, sockaddr_storage, socklen_t)? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let client = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.accept(rawValue, $0, &length)
                }
            }
            if client >= 0 {
                // accept4 is not imported into Swift: set the flags after.
                let accepted = FileDescriptor(rawValue: client)
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                try? accepted.setNonBlocking()
                return (accepted, address, length)
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw SystemError.current(operation())
        }
    }
}
