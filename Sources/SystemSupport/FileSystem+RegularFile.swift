#if canImport(Glibc)
import Glibc
#endif

/// Reading a file that must be a regular one (the kiosk's state and
/// playlist) without ever blocking on what someone put at its path: a FIFO
/// opened for reading waits for a writer, forever, and a device may never end.
extension FileSystem {
    /// The text of the regular file at `path`; nil when there is none.
    /// Opened with O_NONBLOCK, then read only when fstat says it is a regular file.
    public static func readRegularFile(_ path: String, limit: Int) throws(FileReadError) -> String? {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .noControllingTerminal])
        } catch {
            if error.isNotFound { return nil }
            throw FileReadError(.unreadable, "cannot open it: \(error.reason) (check the path and its permissions)")
        }
        defer { fd.close() }
        let info: stat
        do {
            info = try fd.status()
        } catch {
            throw FileReadError(.unreadable, "cannot examine it: \(error.reason)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileReadError(.notRegularFile, "it is \(kind(of: info.st_mode)), not a regular file; remove it (rm \(path)) and put a plain file there, or nothing")
        }
        switch readAll(fd, limit: limit) {
        case .text(let text): return text
        case .failed(let code): throw FileReadError(.unreadable, "cannot read it: \(SystemError.reason(code))")
        case .tooLarge: throw FileReadError(.tooLarge, "it is larger than \(limit) bytes")
        }
    }

    public static func kind(of mode: mode_t) -> String {
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

/// Why a file that must be a regular one was not read; the description says
/// what is wrong with it (the caller names the file).
public struct FileReadError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable { case unreadable, notRegularFile, tooLarge }
    public var code: Code
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
