#if canImport(Glibc)
import Glibc
#endif

/// The few file operations the daemon needs, on plain POSIX calls.
public enum FileSystem {
    /// Reads a whole (small) text file; invalid UTF-8 is repaired.
    public static func readText(_ path: String, limit: Int = 1 << 20) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError.current("cannot open \(path)") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError.current("cannot read \(path)")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > limit { throw SystemError("\(path) is larger than \(limit) bytes", errno: EFBIG) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The permission bits of `path`, or nil if it cannot be examined.
    public static func permissions(of path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }
}
