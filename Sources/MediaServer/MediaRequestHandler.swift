#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// Answers one request: the whole server minus the socket. Immutable, so
/// libmicrohttpd's thread calls it directly, without locks or actor hops.
public final class MediaRequestHandler: Sendable {
    public let roots: MediaRoots
    public let planner: MediaResponsePlanner
    /// Every target starts with `/<token>/` (see `MediaURLToken`); nil: no token.
    public let urlToken: String?
    private let logger = Logger(label: "media-server")

    public init(roots: MediaRoots, corsOrigin: String, urlToken: String? = nil) {
        self.roots = roots
        planner = MediaResponsePlanner(corsOrigin: corsOrigin)
        self.urlToken = urlToken
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var request = request
        if let urlToken {
            // Without the token nothing is answered but 404, and nothing is logged (a scan is not news).
            guard let rest = MediaURLToken.strip(urlToken, from: request.target) else {
                return error(404, headers: planner.corsHeaders)
            }
            // From here on the target is the part after the token: never logged with it.
            request.target = rest
        }
        switch request.method {
        case "GET", "HEAD":
            break
        case "OPTIONS":
            return HTTPResponse(status: 204, headers: sorted(planner.preflightHeaders))
        default:
            var headers = planner.corsHeaders
            headers["Allow"] = "GET, HEAD, OPTIONS"
            return error(405, headers: headers)
        }
        let path: MediaRequestPath
        switch MediaRequestPath.parse(request.target, rootCount: roots.paths.count) {
        case .success(let parsed): path = parsed
        case .failure(let rejection):
            logger.info("refused \(request.method) \(printable(request.target)): \(rejection) (\(rejection.status))")
            return error(rejection.status, headers: planner.corsHeaders)
        }
        let file: MediaRoots.OpenedFile
        switch roots.open(path) {
        case .success(let opened): file = opened
        case .failure(let refusal):
            if refusal != .notFound {
                logger.info("refused \(request.method) \(printable(request.target)): \(refusal) (\(refusal.status))")
            }
            return error(refusal.status, headers: planner.corsHeaders)
        }
        let contentType = MediaContentType.forFile(path.components.last ?? "")
        let plan = planner.plan(request, file: file.metadata, contentType: contentType)
        guard let bytes = plan.bytes else {
            close(file.fd)
            return HTTPResponse(status: plan.status, headers: sorted(plan.headers))
        }
        return HTTPResponse(status: plan.status, headers: sorted(plan.headers),
                            body: .file(fd: file.fd, offset: bytes.offset, length: bytes.length))
    }

    private func error(_ status: Int, headers: [String: String]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "text/plain; charset=utf-8"
        return HTTPResponse(status: status, headers: sorted(headers), body: .text("\(status) \(reason(status))\n"))
    }

    private func sorted(_ headers: [String: String]) -> [(name: String, value: String)] {
        headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
    }

    /// The target for a log line: printable ASCII, the rest escaped, bounded.
    private func printable(_ target: [UInt8]) -> String {
        var text = ""
        for byte in target.prefix(200) {
            if byte >= 0x20, byte < 0x7F { text.unicodeScalars.append(Unicode.Scalar(byte)) } else { text += "\\x" + String(byte, radix: 16) }
        }
        return target.count > 200 ? text + "...(\(target.count) bytes)" : text
    }

    func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 414: "URI Too Long"
        default: "Error"
        }
    }
}

extension HTTPResponse {
    /// Closes the file descriptor of an answer that will not be sent.
    public func discard() {
        if case .file(let fd, _, _) = body { close(fd) }
    }
}
