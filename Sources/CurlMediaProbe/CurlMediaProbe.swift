import CCurl
import Dispatch
import ReceiverSimulator
import SystemSupport

/// The simulator's media fetches over libcurl: one easy handle per request,
/// performed on a Dispatch queue (curl_easy_perform blocks), never on the
/// cooperative pool. Only http and https; redirects followed, as a player does.
public final class CurlMediaProbe: MediaProbe {
    private let queue = DispatchQueue(label: "curl-media-probe", attributes: .concurrent)
    private let timeoutMilliseconds: Int

    /// `timeout` bounds each request (connect + transfer).
    public init(timeout: Duration = .seconds(10)) {
        _ = CurlMediaProbe.globalInit
        timeoutMilliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
    }

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    public func head(_ url: String, origin: String?) async throws -> ProbeResponse {
        try await perform(url, range: nil, headOnly: true, origin: origin)
    }

    public func get(_ url: String, range: ClosedRange<UInt64>, origin: String?) async throws -> ProbeResponse {
        try await perform(url, range: range, headOnly: false, origin: origin)
    }

    private func perform(_ url: String, range: ClosedRange<UInt64>?, headOnly: Bool, origin: String?) async throws -> ProbeResponse {
        let timeout = timeoutMilliseconds
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result {
                    try CurlMediaProbe.performBlocking(url, range: range, headOnly: headOnly, origin: origin, timeoutMilliseconds: timeout)
                })
            }
        }
    }

    private static func performBlocking(_ url: String, range: ClosedRange<UInt64>?, headOnly: Bool, origin: String?,
                                        timeoutMilliseconds: Int) throws -> ProbeResponse {
        guard let handle = curl_easy_init() else { throw ProbeError("libcurl: cannot create a handle") }
        defer { curl_easy_cleanup(handle) }
        let limit = range.map { Int(clamping: $0.upperBound - $0.lowerBound + 1) } ?? 0
        let transfer = Transfer(limit: min(limit, 16 << 20))
        var headerList: UnsafeMutablePointer<curl_slist>?
        if let origin { headerList = curl_slist_append(headerList, "Origin: \(origin)") }
        defer { curl_slist_free_all(headerList) }

        var setup = [
            cg_curl_setopt_string(handle, CURLOPT_URL, url),
            cg_curl_allow_http_only(handle),
            cg_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1),
            cg_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1),
            cg_curl_setopt_long(handle, CURLOPT_MAXREDIRS, 5),
            cg_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMilliseconds, 5000)),
            cg_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds),
            cg_curl_setopt_string(handle, CURLOPT_USERAGENT, "cast-receiver-sim (CrKey)"),
            cg_curl_setopt_headers(handle, headerList),
            cg_curl_setopt_header_function(handle, headerCallback),
            cg_curl_setopt_write_function(handle, bodyCallback),
            cg_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, Unmanaged.passUnretained(transfer).toOpaque()),
            cg_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(transfer).toOpaque()),
        ]
        if headOnly { setup.append(cg_curl_setopt_long(handle, CURLOPT_NOBODY, 1)) }
        if let range { setup.append(cg_curl_setopt_string(handle, CURLOPT_RANGE, "\(range.lowerBound)-\(range.upperBound)")) }
        if let failed = setup.first(where: { $0 != CURLE_OK }) {
            throw ProbeError("libcurl setup failed: \(String(cString: curl_easy_strerror(failed)))")
        }
        let result = withExtendedLifetime(transfer) { curl_easy_perform(handle) }
        // A server that ignores Range is cut off once enough was read.
        guard result == CURLE_OK || (result == CURLE_WRITE_ERROR && transfer.truncated) else {
            throw ProbeError("\(headOnly ? "HEAD" : "GET") \(url): \(String(cString: curl_easy_strerror(result)))")
        }
        var status = 0
        cg_curl_response_code(handle, &status)
        return ProbeResponse(status: status, headers: transfer.headers, body: transfer.body)
    }
}

/// What the callbacks collect during one transfer (on the performing thread only).
private final class Transfer {
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    let limit: Int
    var truncated = false

    init(limit: Int) { self.limit = limit }

    /// One header line; a new status line (redirect, 100 Continue) starts over.
    func addHeaderLine(_ line: String) {
        if line.hasPrefix("HTTP/") {
            headers = [:]
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        var value = line[line.index(after: colon)...]
        while let first = value.first, first == " " || first == "\t" { value.removeFirst() }
        while let last = value.last, last.isNewline || last == " " { value.removeLast() }
        headers[name] = String(value)
    }

    /// False once `limit` bytes are in: curl then stops the transfer.
    func addBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let room = limit - body.count
        body.append(contentsOf: bytes.prefix(max(room, 0)))
        if bytes.count > room {
            truncated = true
            return false
        }
        return true
    }
}

private let headerCallback: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    let length = size * count
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: min(length, 8192)), as: UTF8.self)
    Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().addHeaderLine(line)
    return length
}

private let bodyCallback: curl_write_callback = { data, size, count, context in
    guard let data, let context else { return 0 }
    let length = size * count
    let accepted = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        .addBody(UnsafeRawBufferPointer(start: data, count: length))
    return accepted ? length : 0
}
