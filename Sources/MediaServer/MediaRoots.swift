#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// The configured roots, resolved once with realpath(3), and the only code
/// that opens a file on a client's behalf.
///
/// A validated `MediaRequestPath` has no `..`; what can still lead out of a
/// root is a symlink, so the joined path is resolved again and must stay
/// under the root's resolved path. Only regular files are opened (FIFOs and
/// devices are refused before open, and checked again on the descriptor).
public struct MediaRoots: Sendable, Equatable {
    /// Resolved absolute paths, in configuration order (the URL's root index).
    public let paths: [String]

    public init(resolvedPaths: [String]) {
        paths = resolvedPaths
    }

    /// A file opened for serving; the caller owns `fd`.
    public struct OpenedFile: Sendable {
        public var fd: Int32
        public var metadata: FileMetadata
        public var resolvedPath: String
    }

    /// Why a well-formed path is not served.
    public enum Refusal: Error, Equatable, Sendable {
        case notFound
        /// A symlink (somewhere on the path) resolves outside the root.
        case outsideRoot
        /// A symlink resolves to a hidden file, or into a hidden directory.
        case hidden
        /// A directory, FIFO, socket or device.
        case notRegularFile
        /// Exists but cannot be opened (permissions, ...): errno.
        case unreadable(Int32)

        public var status: Int {
            switch self {
            case .notFound: 404
            case .outsideRoot, .hidden, .notRegularFile, .unreadable: 403
            }
        }
    }

    /// Opens the file `path` names, or says why not.
    public func open(_ path: MediaRequestPath) -> Result<OpenedFile, Refusal> {
        guard paths.indices.contains(path.rootIndex) else { return .failure(.notFound) }
        let root = paths[path.rootIndex]
        let joined = root + "/" + path.components.joined(separator: "/")
        guard let resolved = MediaRoots.realPath(joined) else {
            return .failure(SystemError.current("realpath").errno == EACCES ? .unreadable(EACCES) : .notFound)
        }
        guard MediaRoots.isInside(resolved, root: root) else { return .failure(.outsideRoot) }
        // A symlink may lead to a hidden file or directory that could not be
        // named directly: the resolved path obeys the same rule.
        guard !MediaRoots.isHidden(resolved, below: root) else { return .failure(.hidden) }
        var info = stat()
        guard stat(resolved, &info) == 0 else { return .failure(.notFound) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notRegularFile) }
        // O_NONBLOCK: should the file be swapped for a FIFO now, open must not hang.
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(resolved, .readOnly, options: [.noFollow, .nonBlocking])
        } catch {
            return .failure(.unreadable(error.errno))
        }
        guard let opened = try? fd.status(), opened.st_mode & S_IFMT == S_IFREG, opened.st_size >= 0 else {
            fd.close()
            return .failure(.notRegularFile)
        }
        let metadata = FileMetadata(size: UInt64(opened.st_size), modifiedSeconds: Int64(opened.st_mtim.tv_sec),
                                    modifiedNanoseconds: Int64(opened.st_mtim.tv_nsec), inode: UInt64(opened.st_ino))
        return .success(OpenedFile(fd: fd.rawValue, metadata: metadata, resolvedPath: resolved))
    }

    /// Where a local file is served from: its root index and the components
    /// below it, or nil when it is under no root (after resolving symlinks).
    public func locate(_ localPath: String) -> MediaRequestPath? {
        guard let resolved = MediaRoots.realPath(localPath) else { return nil }
        for (index, root) in paths.enumerated() where MediaRoots.isInside(resolved, root: root) {
            let relative = resolved.dropFirst(root.count).split(separator: "/").map(String.init)
            guard !relative.isEmpty else { continue }
            return MediaRequestPath(rootIndex: index, components: relative)
        }
        return nil
    }

    /// realpath(3), or nil (errno set).
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether a component of `path` below `root` (both resolved) starts
    /// with a dot; the root's own path may have hidden components.
    static func isHidden(_ path: String, below root: String) -> Bool {
        path.dropFirst(root.count).split(separator: "/").contains { $0.hasPrefix(".") }
    }

    /// Whether `path` (resolved) is `root` itself or below it.
    static func isInside(_ path: String, root: String) -> Bool {
        if root == "/" { return path.hasPrefix("/") }
        return path == root || path.hasPrefix(root + "/")
    }
}
