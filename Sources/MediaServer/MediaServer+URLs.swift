/// A local file as a receiver fetches it: its URL, Content-Type and
/// sidecar subtitles.
public struct LocalMedia: Sendable, Equatable {
    public var url: String
    public var contentType: String
    public var subtitles: [SidecarSubtitle]
}

extension MediaServer {
    /// The URL a receiver uses for `localPath` (absolute; symlinks resolved).
    /// Throws when the file is under no root, is not servable (hidden, not a
    /// regular file), or the server does not listen yet.
    public func url(forLocalPath localPath: String) throws -> String {
        let path = try servablePath(localPath)
        guard let endpoint else {
            throw MediaServerError(.notListening, "no URL for \(localPath) yet: the media server is not listening (no receiver known)")
        }
        return "http://\(endpoint.urlHost):\(endpoint.port)\(urlPrefix)\(path.target)"
    }

    /// The URL, Content-Type and sidecar subtitle tracks for `localPath`.
    public func media(forLocalPath localPath: String) throws -> LocalMedia {
        let url = try url(forLocalPath: localPath)
        let resolved = MediaRoots.realPath(localPath) ?? localPath
        let subtitles = SidecarSubtitles.find(forMediaFile: resolved).compactMap { subtitle -> SidecarSubtitle? in
            guard let trackURL = try? self.url(forLocalPath: subtitle.path) else { return nil }
            var track = subtitle
            track.url = trackURL
            return track
        }
        return LocalMedia(url: url, contentType: MediaContentType.forFile(resolved), subtitles: subtitles)
    }

    /// Whether `localPath` names a file this server would serve.
    public func canServe(_ localPath: String) -> Bool {
        (try? servablePath(localPath)) != nil
    }

    private func servablePath(_ localPath: String) throws -> MediaRequestPath {
        guard let path = roots.locate(localPath) else {
            throw MediaServerError(.notServable,
                                   "\(localPath) is not under any [media] root (\(roots.paths.joined(separator: ", "))), or does not exist")
        }
        // Build only URLs the server will answer: same rules as for requests.
        guard case .success(let parsed) = MediaRequestPath.parse(path.target, rootCount: roots.paths.count), parsed == path else {
            throw MediaServerError(.notServable, "\(localPath) cannot be served: hidden files and names with control characters are refused")
        }
        guard case .success(let file) = roots.open(path) else {
            throw MediaServerError(.notServable, "\(localPath) cannot be served: not a readable regular file")
        }
        HTTPResponse(status: 200, body: .file(fd: file.fd, offset: 0, length: 0)).discard()
        return path
    }
}
