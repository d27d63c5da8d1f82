#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import CShims
import SystemSupport

/// One running libmicrohttpd daemon: the only code that touches the library.
///
/// MHD runs its own thread, blocked in epoll when idle, and calls
/// `MediaRequestHandler` there; the handler is immutable, so no lock and no
/// actor is involved. File bodies go out with sendfile(2) from the
/// descriptor (MHD_create_response_from_fd_at_offset64), so no byte of media
/// is copied through user space.
final class HTTPDaemon: @unchecked Sendable {
    /// Connection limits: a few receivers and phones, not the Internet.
    struct Limits {
        var connections: UInt32 = 64
        var connectionsPerAddress: UInt32 = 16
        /// Idle keep-alive connections are closed after this long.
        var timeoutSeconds: UInt32 = 60
        /// Per-connection buffer for the request head (and 414 beyond it).
        var memoryPerConnection = 32 * 1024
    }

    private let daemon: OpaquePointer
    private let context: Unmanaged<MediaRequestHandler>
    let address: ListenAddress

    /// Starts listening on `address` (port 0: any free port).
    init(address: ListenAddress, handler: MediaRequestHandler, limits: Limits = Limits()) throws {
        let context = Unmanaged.passRetained(handler)
        var cLimits = cg_mhd_limits(connection_limit: limits.connections,
                                    per_ip_connection_limit: limits.connectionsPerAddress,
                                    timeout_seconds: limits.timeoutSeconds,
                                    memory_limit: limits.memoryPerConnection, turbo: 1)
        let started = address.withSockaddr { sockaddr, _ in
            cg_mhd_start(sockaddr, address.isIPv6 ? 1 : 0, accessHandler, context.toOpaque(), &cLimits, logMHD, nil)
        }
        guard let started else {
            context.release()
            throw MediaServerError(.listenFailed,
                                   "cannot listen on \(address) (\(String(cString: strerror(errno)))); is the port in use or the address not on this host?")
        }
        daemon = started
        self.context = context
        let fd = cg_mhd_listen_fd(started)
        self.address = (fd >= 0 ? ListenAddress.local(of: fd) : nil) ?? address
    }

    /// Closes the listening socket and every connection, joins MHD's thread.
    /// Blocks: call it from a Dispatch queue, not the cooperative pool.
    func stop() {
        MHD_stop_daemon(daemon)
        context.release()
    }
}

private let logger = Logger(label: "media-server")

private let logMHD: cg_mhd_log_function = { _, message in
    guard let message else { return }
    logger.notice("libmicrohttpd: \(String(cString: message))")
}

/// Called on MHD's thread for each request (once: nothing is uploaded to a
/// read-only server, so the answer is queued on the first call).
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, _, _ in
    guard let cls, let connection, let url, let method else { return cg_mhd_refuse() }
    let handler = Unmanaged<MediaRequestHandler>.fromOpaque(cls).takeUnretainedValue()
    func header(_ name: String) -> String? {
        guard let value = cg_mhd_request_header(connection, name) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: value, count: strlen(value)).prefix(1024), as: UTF8.self)
    }
    let target = Array(UnsafeRawBufferPointer(start: url, count: strnlen(url, MediaRequestPath.maximumTargetLength + 1)))
    let request = HTTPRequest(method: String(cString: method), target: target, range: header("Range"),
                              ifRange: header("If-Range"), ifMatch: header("If-Match"),
                              ifNoneMatch: header("If-None-Match"), ifModifiedSince: header("If-Modified-Since"))
    let answer = handler.respond(to: request)
    let response: OpaquePointer?
    switch answer.body {
    case .empty:
        response = cg_mhd_response_copy(nil, 0)
    case .text(let text):
        let bytes = Array(text.utf8)
        response = bytes.withUnsafeBytes { cg_mhd_response_copy($0.baseAddress, $0.count) }
    case .file(let fd, let offset, let length):
        // MHD owns (and closes) the descriptor from here on, even on failure.
        response = MHD_create_response_from_fd_at_offset64(length, fd, offset)
        if response == nil { close(fd) }
    }
    guard let response else { return cg_mhd_refuse() }
    defer { MHD_destroy_response(response) }
    for (name, value) in answer.headers {
        _ = MHD_add_response_header(response, name, value)
    }
    return MHD_queue_response(connection, UInt32(answer.status), response)
}
