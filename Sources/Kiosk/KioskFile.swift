#if canImport(Glibc)
import Glibc
#endif

/// Reading the kiosk's own files (state, playlist) without ever blocking on
/// what someone put at their path: a FIFO opened for reading waits for a
/// writer, forever, and a device may never end.
enum KioskFile {
    /// The text of the regular file at `path`; nil when there is none.
    /// Opened with O_NONBLOCK, then read only when fstat says it is a regular file.
    static func readRegularFile(_ path: String, limit: Int) throws(KioskFileError) -> String? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw KioskFileError(.unreadable, "cannot open it: \(String(cString: strerror(code))) (check the path and its permissions)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw KioskFileError(.unreadable, "cannot examine it: \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw KioskFileError(.notRegularFile, "it is \(kind(of: info.st_mode)), not a regular file; remove it (rm \(path)) and put a plain file there, or nothing")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw KioskFileError(.unreadable, "cannot read it: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            if bytes.count > limit { throw KioskFileError(.tooLarge, "it is larger than \(limit) bytes") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a plain file"
        }
    }
}

/// Why one of the kiosk's files was not read.
struct KioskFileError: Error, CustomStringConvertible {
    enum Code: String { case unreadable, notRegularFile, tooLarge }
    var code: Code
    var description: String

    init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
