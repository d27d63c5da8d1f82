#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import CMicroHTTPDShim
import SystemSupport

/// One running libmicrohttpd daemon: the only code that touches the library.
///
/// MHD runs its own thread, blocked in epoll when idle, and calls
/// `MediaRequestHandler` there; the handler is immutable, so no lock and no
/// actor is involved. File bodies go out with sendfile(2) from the
/// descriptor (MHD_create_response_from_fd_at_offset64), so no byte of media
/// is copied through user space.
final class HTTPDaemon: @unchecked Sendable {
    private let daemon: OpaquePointer
    /// Retained until MHD_stop_daemon returned: MHD's thread calls into it until then.
    private let context: Unmanaged<DaemonContext>
    let admission: ConnectionAdmission
    let address: ListenAddress

    /// Starts listening on `address` (port 0: any free port).
    init(address: ListenAddress, handler: MediaRequestHandler, limits: ConnectionLimits, receiver: String?) throws {
        try HTTPDaemon.loadLibrary()
        let admission = ConnectionAdmission(othersLimit: limits.othersLimit, headDeadlineSeconds: limits.headDeadlineSeconds,
                                            port: address.port)
        admission.setReceiver(receiver)
        let context = Unmanaged.passRetained(DaemonContext(handler: handler, admission: admission))
        var cLimits = cg_mhd_limits(connection_limit: limits.connections,
                                    per_ip_connection_limit: limits.connectionsPerAddress,
                                    timeout_seconds: limits.idleTimeoutSeconds,
                                    memory_limit: limits.memoryPerConnection, turbo: 1)
        let started = address.withSockaddr { sockaddr, _ in
            cg_mhd_start(sockaddr, address.isIPv6 ? 1 : 0, accessHandler, context.toOpaque(), &cLimits,
                         admitConnection, notifyConnection, context.toOpaque(), logMHD, nil)
        }
        guard let started else {
            let reason = SystemError.current("MHD_start_daemon").errno
            context.release()
            admission.shutdown()
            if reason == EADDRINUSE {
                throw MediaServerError(.portInUse,
                                       "port \(address.port) on \(address.urlHost) is in use by another program; stop that program "
                                           + "or set [media] port to a free port")
            }
            throw MediaServerError(.listenFailed,
                                   "cannot listen on \(address) (\(SystemError.reason(reason))); is the address not on this host?")
        }
        daemon = started
        self.context = context
        self.admission = admission
        let fd = cg_mhd_listen_fd(started)
        self.address = (fd >= 0 ? ListenAddress.local(of: fd) : nil) ?? address
    }

    /// Loads libmicrohttpd on first use: a gateway without [media] never maps
    /// it (nor GnuTLS behind it). Blocks (it reads files): not on the cooperative pool.
    static func loadLibrary() throws(MediaServerError) {
        var text = [CChar](repeating: 0, count: 320)
        guard cg_mhd_load(&text, text.count) == 1 else {
            throw MediaServerError(.library, "\(String(nullTerminated: text)) or remove [media]")
        }
    }

    /// Closes the listening socket and every connection, joins MHD's thread.
    /// Blocks: call it from a Dispatch queue, not the cooperative pool.
    func stop() {
        cg_MHD_stop_daemon(daemon)
        admission.shutdown()
        context.release()
    }
}

/// What MHD's callbacks are given: the request handler and the admission policy.
private final class DaemonContext: Sendable {
    let handler: MediaRequestHandler
    let admission: ConnectionAdmission

    init(handler: MediaRequestHandler, admission: ConnectionAdmission) {
        self.handler = handler
        self.admission = admission
    }
}

private let logger = Logger(label: "media-server")

private let logMHD: cg_mhd_log_function = { _, message in
    guard let message else { return }
    let text = String(cString: message)
    // A port in use is reported (once per outage) by MediaServerService; MHD
    // would repeat it at every retry. A client that closes (or whose slow
    // head is cut off, logged by ConnectionAdmission) is not the server's problem.
    if text.hasPrefix("Failed to bind") || text.hasPrefix("Connection socket is closed when reading request") {
        logger.debug("libmicrohttpd: \(text)")
    } else {
        logger.notice("libmicrohttpd: \(text)")
    }
}

private let admitConnection: MHD_AcceptPolicyCallback = { cls, address, _ in
    guard let cls else { return cg_mhd_refuse() }
    let admission = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().admission
    return admission.admit(address) ? cg_mhd_allow() : cg_mhd_refuse()
}

/// Marks, in a connection's socket context, one counted as another host's.
private let countedAsOther = 1

private let notifyConnection: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let connection, let socketContext else { return }
    let admission = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue().admission
    if cg_mhd_connection_started(code) != 0 {
        if admission.started(connection, address: cg_mhd_client_address(connection), fd: cg_mhd_connection_fd(connection)) {
            socketContext.pointee = UnsafeMutableRawPointer(bitPattern: countedAsOther)
        }
    } else if socketContext.pointee == UnsafeMutableRawPointer(bitPattern: countedAsOther) {
        socketContext.pointee = nil
        admission.closedOther(connection)
    }
}

/// Called on MHD's thread for each request (once: nothing is uploaded to a
/// read-only server, so the answer is queued on the first call).
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, _, _, _ in
    guard let cls, let connection, let url, let method else { return cg_mhd_refuse() }
    let context = Unmanaged<DaemonContext>.fromOpaque(cls).takeUnretainedValue()
    let handler = context.handler
    let fromOther = context.admission.requestArrived(connection, address: cg_mhd_client_address(connection))
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
        response = cg_MHD_create_response_from_fd_at_offset64(length, fd, offset)
        if response == nil { close(fd) }
    }
    guard let response else { return cg_mhd_refuse() }
    defer { cg_MHD_destroy_response(response) }
    for (name, value) in answer.headers {
        _ = cg_MHD_add_response_header(response, name, value)
    }
    // One request per connection for other hosts: their head deadline then covers every head.
    if fromOther { _ = cg_MHD_add_response_header(response, "Connection", "close") }
    return cg_MHD_queue_response(connection, UInt32(answer.status), response)
}
