import SystemSupport

/// Why a playlist could not be read, located like a config error.
public struct PlaylistError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String

    public init(file: String, line: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { file + (line.map { ":\($0)" } ?? "") + ": " + message }
}

extension Playlist {
    /// At most this many items (a typing mistake or a runaway generator, beyond).
    public static let maximumItems = 10_000

    /// Reads the items of `source` (a playlist file or a media directory).
    public static func load(_ source: KioskSettings.Source) throws(PlaylistError) -> Playlist {
        switch source {
        case .none: return Playlist(items: [], origin: "no playlist")
        case .playlist(let path):
            let text: String
            do {
                // Not FileSystem.readText: a FIFO at the path would block the start (and a reload) for good.
                guard let read = try FileSystem.readRegularFile(path, limit: 1 << 20) else {
                    throw FileReadError(.unreadable, "it does not exist (check [kiosk] playlist)")
                }
                text = read
            } catch {
                throw PlaylistError(file: path, message: "cannot read the playlist: \(error)")
            }
            return try parse(text, path: path)
        case .directory(let path):
            return try scan(directory: path)
        }
    }

    /// Parses an M3U / extended M3U playlist, or a plain list of URLs and paths:
    /// - blank lines and `#` comments are skipped (`#EXTM3U` too);
    /// - `#EXTINF:SECONDS,TITLE` gives the next item its title, and its
    ///   duration when it is a slide (`-1` or `0`: not given);
    /// - `# duration=SECONDS` gives the next item its slide duration;
    /// - `http://` and `https://` URLs are cast as they are; other lines are
    ///   local paths (`file://` too), relative ones from the playlist's directory.
    public static func parse(_ text: String, path: String) throws(PlaylistError) -> Playlist {
        let directory = KioskSettings.directory(of: path)
        var items: [PlaylistItem] = []
        var pendingTitle: String?
        var pendingDuration: Double?
        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        for (offset, rawLine) in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let number = offset + 1
            func fail(_ message: String) -> PlaylistError { PlaylistError(file: path, line: number, message: message) }
            var line = rawLine.trimmingSpaces()
            if line.hasSuffix("\r") { line = String(line.dropLast()).trimmingSpaces() }
            guard !line.isEmpty else { continue }
            guard !line.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw fail("control characters (or NUL) in the line; is this a text playlist?")
            }
            if line.hasPrefix("#") {
                if line.uppercased().hasPrefix("#EXTINF:") {
                    let info = line.dropFirst("#EXTINF:".count)
                    let comma = info.firstIndex(of: ",")
                    let head = info[..<(comma ?? info.endIndex)]
                    let durationText = head.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
                    guard let seconds = Double(durationText), seconds.isFinite else {
                        throw fail("#EXTINF needs a duration in seconds (-1 when unknown), as in #EXTINF:10,Title")
                    }
                    if seconds > 0 { pendingDuration = try checkedDuration(seconds, fail) }
                    let title = comma.map { info[info.index(after: $0)...].trimmingSpaces() } ?? ""
                    pendingTitle = title.isEmpty ? nil : title
                } else {
                    let comment = line.dropFirst().trimmingSpaces().lowercased()
                    if comment.hasPrefix("duration=") || comment.hasPrefix("duration =") {
                        let value = comment.split(separator: "=", maxSplits: 1).last.map { $0.trimmingSpaces() } ?? ""
                        guard let seconds = Double(value) else { throw fail("'# duration=' needs seconds, e.g. # duration=15") }
                        pendingDuration = try checkedDuration(seconds, fail)
                    }
                }
                continue
            }
            let location: PlaylistItem.Location
            if let schemeEnd = line.firstRange(of: "://") {
                let scheme = line[..<schemeEnd.lowerBound].lowercased()
                switch scheme {
                case "http", "https":
                    location = .url(line)
                case "file":
                    let filePath = String(line[schemeEnd.upperBound...])
                    guard filePath.hasPrefix("/"), !filePath.contains("%") else {
                        throw fail("write file URLs as file:///absolute/path without %-escapes, or just the path")
                    }
                    location = .localPath(filePath)
                default:
                    throw fail("'\(scheme)://' is not supported: use http(s) URLs or local paths")
                }
            } else {
                location = .localPath(KioskSettings.resolve(line, against: directory))
            }
            guard items.count < maximumItems else { throw fail("more than \(maximumItems) items") }
            items.append(PlaylistItem(location: location, title: pendingTitle, duration: pendingDuration))
            pendingTitle = nil
            pendingDuration = nil
        }
        guard !items.isEmpty else { throw PlaylistError(file: path, message: "the playlist has no items (one URL or path per line)") }
        return Playlist(items: items, origin: path)
    }

    /// The media files of `directory` (not hidden, known extensions), in name order.
    public static func scan(directory: String) throws(PlaylistError) -> Playlist {
        guard FileSystem.isDirectory(directory) else {
            throw PlaylistError(file: directory, message: "is not a readable directory ([kiosk] media)")
        }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let names = FileSystem.directoryEntries(directory).filter { name in
            guard !name.hasPrefix("."), let dot = name.lastIndex(of: ".") else { return false }
            return PlaylistItem.mediaExtensions.contains(name[name.index(after: dot)...].lowercased())
        }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let items = names.prefix(maximumItems).map { base + "/" + $0 }.filter(FileSystem.isRegularFile).map { path in
            PlaylistItem(location: .localPath(path))
        }
        guard !items.isEmpty else {
            throw PlaylistError(file: directory, message: "holds no media files (\(PlaylistItem.mediaExtensions.sorted().joined(separator: ", ")))")
        }
        return Playlist(items: items, origin: directory)
    }

    private static func checkedDuration(_ seconds: Double, _ fail: (String) -> PlaylistError) throws(PlaylistError) -> Double {
        guard seconds.isFinite, seconds >= 1, seconds <= 86_400 else { throw fail("a slide's duration is 1 to 86400 seconds") }
        return seconds
    }
}
