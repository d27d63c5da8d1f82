#if canImport(Glibc)
import Glibc
#endif

/// The few file operations the daemon needs, on plain POSIX calls.
public enum FileSystem {
    /// Reads a whole (small) text file; invalid UTF-8 is repaired.
    public static func readText(_ path: String, limit: Int = 1 << 20) throws -> String {
        let fd = try FileDescriptor.open(path, .readOnly, operation: "cannot open \(path)")
        defer { fd.close() }
        switch readAll(fd, limit: limit) {
        case .text(let text): return text
        case .failed(let code): throw SystemError("cannot read \(path)", errno: code)
        case .tooLarge: throw SystemError("\(path) is larger than \(limit) bytes", errno: EFBIG)
        }
    }

    enum ReadOutcome {
        case text(String)
        case failed(errno: Int32)
        case tooLarge
    }

    /// Reads `fd` to its end (at most `limit` bytes); invalid UTF-8 is repaired.
    static func readAll(_ fd: FileDescriptor, limit: Int) -> ReadOutcome {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count: Int
            do {
                count = try fd.read(into: &buffer)
            } catch {
                return .failed(errno: error.errno)
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > limit { return .tooLarge }
        }
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// The permission bits of `path`, or nil if it cannot be examined.
    public static func permissions(of path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }

    /// The names in directory `path` (without `.` and `..`); empty when it cannot be read.
    public static func directoryEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `path` exists (any kind of file).
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}

/// Process environment variables.
public enum Environment {
    /// The value of `name`, or nil when unset or empty.
    public static func value(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}
