/// One request as the web interface sees it, filled by the libmicrohttpd
/// glue (or a test): the method, the raw target, the few headers it acts on
/// and the body (at most `WebRequest.maximumBody` bytes).
public struct WebRequest: Sendable, Equatable {
    public static let maximumBody = 4096

    /// The body a POST to `target` may have: the config editor's form carries a whole file.
    public static func maximumBody(for target: String) -> Int {
        target == "/config" ? 3 * WebConfigFile.maximumSize + 4096 : maximumBody
    }

    public var method: String
    /// Still percent-encoded; libmicrohttpd passes the path without the query.
    public var target: String
    public var cookie: String?
    public var contentType: String?
    /// `fetch` from the page's script: answered 204 instead of a redirect.
    public var requestedWith: String?
    /// `Host` and `Origin`, for the DNS-rebinding check (`WebHostCheck`).
    public var host: String?
    public var origin: String?
    public var body: [UInt8]
    /// The body was longer than `maximumBody` (and cut).
    public var bodyTooLarge = false

    public init(method: String, target: String, cookie: String? = nil, contentType: String? = nil, requestedWith: String? = nil,
                host: String? = nil, origin: String? = nil, body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.cookie = cookie
        self.contentType = contentType
        self.requestedWith = requestedWith
        self.host = host
        self.origin = origin
        self.body = body
    }

    /// The path without the query.
    public var path: String { String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "") }

    /// The value of cookie `name`.
    public func cookie(_ name: String) -> String? {
        guard let cookie else { return nil }
        for part in cookie.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if pair.count == 2, pair[0].trimmingSpacesAndTabs() == name { return String(pair[1].trimmingSpacesAndTabs()) }
        }
        return nil
    }

    /// The fields of an `application/x-www-form-urlencoded` body; empty for any other type.
    public var form: [String: String] {
        guard let contentType, contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") else { return [:] }
        return FormData.parse(body)
    }
}

/// The answer: status, headers (the security headers are added by the handler) and body.
public struct WebResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String, text: String) {
        self.init(status: status, headers: [("Content-Type", contentType)], body: Array(text.utf8))
    }

    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
}

extension Substring {
    func trimmingSpacesAndTabs() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
