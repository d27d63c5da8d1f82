#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// The `[media]` section: which directories are served, on which port, and
/// the CORS origin receivers are given.
public struct MediaServerSettings: Sendable, Equatable {
    /// Absolute directories; files below them (symlinks resolved) are served.
    public var roots: [String]
    /// TCP port; 0 picks a free one (tests).
    public var port: UInt16
    /// `Access-Control-Allow-Origin`: `*`, or one origin such as
    /// `https://receiver.example.com`.
    public var corsOrigin: String

    public static let defaultPort: UInt16 = 8090

    public init(roots: [String], port: UInt16 = MediaServerSettings.defaultPort, corsOrigin: String = "*") {
        self.roots = roots
        self.port = port
        self.corsOrigin = corsOrigin
    }

    /// Checks every setting against the file system and resolves the roots.
    /// The error names the offending root and what to do about it.
    public func validated() throws -> MediaRoots {
        try MediaServerSettings.checkOrigin(corsOrigin)
        guard !roots.isEmpty else {
            throw MediaServerError(.badRoot, "[media] roots is empty; name at least one directory, e.g. roots = /srv/media")
        }
        var resolved: [String] = []
        for root in roots {
            let path = try MediaServerSettings.resolveRoot(root)
            if let index = resolved.firstIndex(of: path) {
                throw MediaServerError(.badRoot, "[media] roots: '\(root)' is the same directory as '\(roots[index])'; list it once")
            }
            resolved.append(path)
        }
        return MediaRoots(resolvedPaths: resolved)
    }

    static func resolveRoot(_ root: String) throws -> String {
        guard root.hasPrefix("/") else {
            throw MediaServerError(.badRoot, "[media] roots: '\(root)' is not an absolute path; write it from /, e.g. /srv/media")
        }
        guard !root.utf8.contains(0), root.utf8.count < 4096 else {
            throw MediaServerError(.badRoot, "[media] roots: a root path is too long or contains NUL")
        }
        guard let path = MediaRoots.realPath(root) else {
            let reason = SystemError.current("realpath").reason
            throw MediaServerError(.badRoot, "[media] roots: '\(root)' cannot be used (\(reason)); create it or fix the path")
        }
        guard path != "/" else {
            throw MediaServerError(.badRoot, "[media] roots: '\(root)' is the whole file system; name the media directory instead")
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw MediaServerError(.badRoot, "[media] roots: '\(root)' is not a directory; name the directory that holds the media")
        }
        guard access(path, R_OK | X_OK) == 0 else {
            throw MediaServerError(.badRoot,
                                   "[media] roots: '\(root)' is not readable by this user; grant read and execute permission (chmod o+rx or a group)")
        }
        return path
    }

    static func checkOrigin(_ origin: String) throws {
        if origin == "*" { return }
        let bytes = Array(origin.utf8)
        let allowed = !bytes.isEmpty && bytes.count <= 255 && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ",") }
        let schemeOK = origin.hasPrefix("http://") || origin.hasPrefix("https://")
        let hostPart = origin.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2)
        guard allowed, schemeOK, hostPart.count == 1, let host = hostPart.first, !host.isEmpty else {
            throw MediaServerError(.badCORSOrigin,
                                   "[media] cors-origin = '\(origin)' is not * or an origin like https://receiver.example.com (scheme and host, no path)")
        }
    }
}
