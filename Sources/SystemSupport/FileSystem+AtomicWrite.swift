#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Numbers each atomic write's temporary file: two writers of one path in
/// this process (an old kiosk store still saving beside a new one) never
/// share a temporary file and rename it from under each other.
private let temporaryFiles = Atomic<UInt64>(0)

extension FileSystem {
    /// Replaces `path` with `bytes` so that a power cut or `kill -9` leaves
    /// either the old file or the new one, never a torn mix: the bytes go to
    /// a temporary file beside it, which is fsynced, renamed over `path`,
    /// and the directory is fsynced so the rename itself is durable. Blocks
    /// (fsync on an SD card can take a while): call it off the cooperative pool.
    public static func writeAtomically(_ path: String, bytes: [UInt8], mode: mode_t = 0o644) throws {
        let number = temporaryFiles.add(1, ordering: .relaxed).newValue
        let temporary = "\(path).tmp-\(getpid())-\(number)"
        let fd = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate], permissions: mode,
                                         operation: "cannot create \(temporary)")
        do {
            try fd.writeAll(bytes, operation: "cannot write \(temporary)")
            try fd.sync(operation: "cannot flush \(temporary) to storage")
        } catch {
            fd.close()
            unlink(temporary)
            throw error
        }
        fd.close()
        guard rename(temporary, path) == 0 else {
            let error = SystemError.current("cannot rename \(temporary) to \(path)")
            unlink(temporary)
            throw error
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        // Makes the rename durable; a directory that cannot be opened only weakens that.
        if let directoryFD = try? FileDescriptor.open(directory.isEmpty ? "/" : directory, .readOnly, options: .directory) {
            try? directoryFD.sync()
            directoryFD.close()
        }
    }

    /// Removes the file at `path`.
    public static func remove(_ path: String) throws {
        guard unlink(path) == 0 else { throw SystemError.current("cannot remove \(path)") }
    }

    /// Creates directory `path` (not its parents) unless it exists.
    public static func createDirectory(_ path: String, mode: mode_t = 0o755) throws {
        guard !isDirectory(path) else { return }
        guard mkdir(path, mode) != 0 else { return }
        let error = SystemError.current("cannot create the directory \(path)")
        guard error.errno == EEXIST else { throw error }
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
