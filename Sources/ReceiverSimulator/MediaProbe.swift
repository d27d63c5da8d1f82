/// How the simulator fetches media on LOAD, as a real receiver's player
/// does (a HEAD, then a Range GET of the first bytes). The seam between the
/// simulator and an HTTP client: `cast-receiver-sim --fetch-media` plugs in
/// libcurl (CurlMediaProbe); unit tests plug in a fake.
public protocol MediaProbe: Sendable {
    /// A HEAD request. `origin`, when set, is sent as the `Origin` header
    /// (a receiver loading text tracks fetches in CORS mode).
    func head(_ url: String, origin: String?) async throws -> ProbeResponse
    /// A GET of `range` (inclusive byte offsets) with a Range header.
    func get(_ url: String, range: ClosedRange<UInt64>, origin: String?) async throws -> ProbeResponse
}

/// An HTTP answer as far as the simulator cares.
public struct ProbeResponse: Sendable, Equatable {
    public var status: Int
    /// Header names lower-cased; the last value wins.
    public var headers: [String: String]
    /// At most what was asked for (a server ignoring Range is cut short).
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { $1 }
        self.body = body
    }

    /// The file size from `Content-Range: bytes a-b/SIZE`, if given.
    public var totalSize: UInt64? {
        guard let range = headers["content-range"], let slash = range.lastIndex(of: "/") else { return nil }
        return UInt64(range[range.index(after: slash)...])
    }
}

/// A request that got no HTTP answer (connection refused, timeout, DNS...).
public struct ProbeError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
