/// Decides status, headers and byte range for a GET or HEAD of a file that
/// exists: conditional requests (RFC 9110 §13), ranges (§14) and the CORS
/// headers Cast receivers need. Pure, so every branch is unit-tested.
public struct MediaResponsePlanner: Sendable {
    public var corsOrigin: String

    public init(corsOrigin: String) {
        self.corsOrigin = corsOrigin
    }

    /// The decision: status, headers, and the bytes of the file to send (nil: none).
    public struct Plan: Equatable, Sendable {
        public var status: Int
        public var headers: [String: String]
        public var bytes: (offset: UInt64, length: UInt64)?

        public static func == (a: Plan, b: Plan) -> Bool {
            a.status == b.status && a.headers == b.headers && a.bytes?.offset == b.bytes?.offset
                && a.bytes?.length == b.bytes?.length
        }
    }

    /// Headers on every answer, errors included, so a receiver's XHR can read them.
    public var corsHeaders: [String: String] {
        ["Access-Control-Allow-Origin": corsOrigin,
         "Access-Control-Expose-Headers": "Content-Length, Content-Range, Accept-Ranges, ETag"]
    }

    /// The answer to an OPTIONS preflight.
    public var preflightHeaders: [String: String] {
        corsHeaders.merging([
            "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
            "Access-Control-Allow-Headers": "Content-Type, Accept-Encoding, Range",
            "Access-Control-Max-Age": "86400",
            "Allow": "GET, HEAD, OPTIONS",
        ]) { $1 }
    }

    public func plan(_ request: HTTPRequest, file: FileMetadata, contentType: String) -> Plan {
        let etag = file.entityTag
        var headers = corsHeaders
        headers["ETag"] = etag
        headers["Last-Modified"] = file.lastModified
        headers["Accept-Ranges"] = "bytes"

        // If-Match: a client resuming a download of a file that has changed.
        if let ifMatch = request.ifMatch, !MediaResponsePlanner.matches(ifMatch, etag: etag, weak: false) {
            return Plan(status: 412, headers: headers, bytes: nil)
        }
        // If-None-Match wins over If-Modified-Since.
        if let ifNoneMatch = request.ifNoneMatch {
            if MediaResponsePlanner.matches(ifNoneMatch, etag: etag, weak: true) {
                return Plan(status: 304, headers: headers, bytes: nil)
            }
        } else if let since = request.ifModifiedSince.flatMap(HTTPDate.parse), file.modifiedSeconds <= since {
            return Plan(status: 304, headers: headers, bytes: nil)
        }

        headers["Content-Type"] = contentType
        var range = ByteRangeRequest.parse(request.range, size: file.size)
        if range != .whole, let ifRange = request.ifRange, !rangeStillValid(ifRange, file: file, etag: etag) {
            range = .whole
        }
        switch range {
        case .whole:
            return Plan(status: 200, headers: headers, bytes: (0, file.size))
        case .partial(let offset, let length):
            headers["Content-Range"] = "bytes \(offset)-\(offset + length - 1)/\(file.size)"
            return Plan(status: 206, headers: headers, bytes: (offset, length))
        case .unsatisfiable:
            headers["Content-Range"] = "bytes */\(file.size)"
            headers["Content-Type"] = nil
            return Plan(status: 416, headers: headers, bytes: nil)
        }
    }

    /// If-Range holds a strong entity tag or the exact Last-Modified date.
    private func rangeStillValid(_ ifRange: String, file: FileMetadata, etag: String) -> Bool {
        let value = ifRange.trimmingSpaces
        if value.hasPrefix("\"") || value.hasPrefix("W/") { return value == etag }
        guard let date = HTTPDate.parse(value) else { return false }
        return date == file.modifiedSeconds
    }

    /// Whether a comma-separated list of entity tags (or `*`) names `etag`;
    /// `weak` ignores `W/` prefixes (RFC 9110 §8.8.3.2).
    static func matches(_ list: String, etag: String, weak: Bool) -> Bool {
        for candidate in list.split(separator: ",") {
            var tag = String(candidate).trimmingSpaces
            if tag == "*" { return true }
            if tag.hasPrefix("W/") {
                guard weak else { continue }
                tag.removeFirst(2)
            }
            if tag == etag { return true }
        }
        return false
    }
}
