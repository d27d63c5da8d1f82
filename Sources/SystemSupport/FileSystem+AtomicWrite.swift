#if canImport(Glibc)
import Glibc
#endif

extension FileSystem {
    /// Replaces `path` with `bytes` so that a power cut or `kill -9` leaves
    /// either the old file or the new one, never a torn mix: the bytes go to
    /// a temporary file beside it, which is fsynced, renamed over `path`,
    /// and the directory is fsynced so the rename itself is durable. Blocks
    /// (fsync on an SD card can take a while): call it off the cooperative pool.
    public static func writeAtomically(_ path: String, bytes: [UInt8], mode: mode_t = 0o644) throws {
        let temporary = "\(path).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemError.current("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(fd, buffer.baseAddress.map { $0 + written }, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                let error = SystemError.current("cannot write \(temporary)")
                close(fd)
                unlink(temporary)
                throw error
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            let error = SystemError.current("cannot flush \(temporary) to storage")
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = SystemError.current("cannot rename \(temporary) to \(path)")
            unlink(temporary)
            throw error
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let directoryFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            // Makes the rename durable; a directory that cannot be opened only weakens that.
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }

    /// Removes the file at `path`.
    public static func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw SystemError.current("cannot remove \(path)") }
    }

    /// Creates directory `path` (not its parents) unless it exists.
    public static func createDirectory(_ path: String, mode: mode_t = 0o755) throws {
        guard !isDirectory(path) else { return }
        guard mkdir(path, mode) == 0 || errno == EEXIST else { throw SystemError.current("cannot create the directory \(path)") }
    }

    /// Whether `path` is a regular file (symlinks followed).
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether `path` is a directory (symlinks followed).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }
}
