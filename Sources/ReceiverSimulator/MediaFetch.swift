import CastProtocol

/// What a real receiver's player learns by fetching the media on LOAD: a
/// HEAD, then a Range GET of the first bytes (and, for an MP4 whose `moov`
/// box sits at the end, one more ranged read there).
///
/// Failures carry the Web Receiver's `detailedErrorCode`
/// (cast.framework.events.DetailedErrorCode). A progressive file the
/// player cannot fetch (connection refused, HTTP error, CORS refused when
/// the player fetches in CORS mode because text tracks are loaded) ends in the
/// media element's MEDIA_ERR_SRC_NOT_SUPPORTED, reported as
/// MEDIA_SRC_NOT_SUPPORTED (104).
public enum MediaFetch {
    public enum DetailedErrorCode: Int, Sendable {
        case mediaUnknown = 100
        case mediaNetwork = 103
        case mediaSourceNotSupported = 104
        case loadFailed = 905
    }

    public enum Outcome: Equatable, Sendable {
        /// Playable; the duration from the file when it has one (MP4 mvhd).
        case playable(duration: Double?)
        case failed(DetailedErrorCode, reason: String)
    }

    /// Bytes read by the first Range GET, like a player's first buffer.
    public static let firstRead: UInt64 = 65536
    /// The Origin a receiver page sends in CORS mode.
    public static let receiverOrigin = "https://www.gstatic.com"

    public static func fetch(_ media: MediaInformation, probe: any MediaProbe) async -> Outcome {
        let url = media.contentURL ?? media.contentID
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            return .failed(.mediaSourceNotSupported, reason: "\(url) is not an http(s) URL")
        }
        // With text tracks the player fetches in CORS mode (crossorigin="anonymous").
        let corsMode = media.tracks.contains { $0.kind == .text }
        let origin = corsMode ? receiverOrigin : nil
        func refusal(_ response: ProbeResponse, _ request: String) -> Outcome? {
            guard (200..<300).contains(response.status) else {
                return .failed(.mediaSourceNotSupported, reason: "\(request) \(url) answered HTTP \(response.status)")
            }
            if corsMode {
                let allowed = response.headers["access-control-allow-origin"]
                guard allowed == "*" || allowed == receiverOrigin else {
                    return .failed(.mediaSourceNotSupported,
                                   reason: "\(request) \(url) has no Access-Control-Allow-Origin for \(receiverOrigin), and the LOAD has text tracks")
                }
            }
            return nil
        }

        let head: ProbeResponse
        do {
            head = try await probe.head(url, origin: origin)
        } catch {
            return .failed(.mediaSourceNotSupported, reason: "HEAD \(url) failed: \(error)")
        }
        if let failed = refusal(head, "HEAD") { return failed }

        let first: ProbeResponse
        do {
            first = try await probe.get(url, range: 0...(firstRead - 1), origin: origin)
        } catch {
            return .failed(.mediaSourceNotSupported, reason: "GET \(url) failed: \(error)")
        }
        if let failed = refusal(first, "GET") { return failed }
        guard looksLikeMP4(media, url: lowered, firstBytes: first.body) else { return .playable(duration: nil) }
        return .playable(duration: await mp4Duration(url: url, first: first, head: head, origin: origin, probe: probe))
    }

    private static func looksLikeMP4(_ media: MediaInformation, url: String, firstBytes: [UInt8]) -> Bool {
        if firstBytes.count >= 8, Array(firstBytes[4..<8]) == Array("ftyp".utf8) { return true }
        let type = media.contentType.lowercased()
        return type.hasSuffix("/mp4") || type.hasSuffix("/quicktime") || [".mp4", ".m4v", ".m4a", ".mov"].contains { url.hasSuffix($0) }
    }

    /// Follows top-level boxes until mvhd, with at most four more reads.
    private static func mp4Duration(url: String, first: ProbeResponse, head: ProbeResponse, origin: String?,
                                     probe: any MediaProbe) async -> Double? {
        let fileSize = first.totalSize ?? head.headers["content-length"].flatMap { UInt64($0) }
        var scan = MP4Duration.scan(first.body, at: 0, fileSize: fileSize)
        var reads = 0
        var lastOffset: UInt64 = 0
        while case .continueAt(let offset) = scan, reads < 4, offset > lastOffset || reads == 0, offset > 0 {
            reads += 1
            lastOffset = offset
            let (end, overflow) = offset.addingReportingOverflow(firstRead * 16 - 1)  // 1 MiB: a whole moov of a short file
            guard !overflow,
                  let next = try? await probe.get(url, range: offset...end, origin: origin),
                  next.status == 206 else { return nil }
            scan = MP4Duration.scan(next.body, at: offset, fileSize: fileSize)
        }
        if case .duration(let seconds) = scan, seconds < 1e7 { return seconds }
        return nil
    }
}
