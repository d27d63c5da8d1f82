#if canImport(Glibc)
import Glibc
#endif
import CMicroHTTPD
import CMicroHTTPDShim
import MediaServer
import SystemSupport
import TLS

/// The web interface's libmicrohttpd daemon: its own thread, blocked in
/// epoll when idle (no timer, no polling), calling `WebRequestHandler` there.
/// A POST's body arrives over several calls and is gathered (up to
/// `WebRequest.maximumBody` bytes) in the request's context, which the
/// completion callback frees however the request ended.
final class WebHTTPDaemon: @unchecked Sendable {
    private let daemon: OpaquePointer
    private let context: Unmanaged<WebDaemonContext>
    let address: ListenAddress

    /// Starts listening. Blocks (it may load the library): not on the cooperative pool.
    /// `tls`: serve HTTPS with this certificate and key.
    init(address: ListenAddress, handler: WebRequestHandler, tls: PEMCredentials? = nil) throws(WebError) {
        var text = [CChar](repeating: 0, count: 320)
        guard cg_mhd_load(&text, text.count) == 1 else {
            throw WebError(.library, "\(String(nullTerminated: text)) or remove [web]")
        }
        if tls != nil, cg_mhd_tls_supported() != 1 {
            throw WebError(.library, "this libmicrohttpd was built without HTTPS (GnuTLS); install Debian's libmicrohttpd, "
                           + "or set [web] tls = off")
        }
        let context = Unmanaged.passRetained(WebDaemonContext(handler: handler))
        // Few browsers at once; small requests; a slow client is cut off after 30 s.
        var limits = cg_mhd_limits(connection_limit: 32, per_ip_connection_limit: 8, timeout_seconds: 30,
                                   memory_limit: 32 * 1024, turbo: 0)
        let started = address.withSockaddr { sockaddr, _ in
            // MHD copies the PEM text into GnuTLS while it starts.
            guard let tls else {
                return cg_mhd_start_app(sockaddr, address.isIPv6 ? 1 : 0, webAccessHandler, context.toOpaque(), &limits,
                                        webRequestCompleted, nil, logWebMHD, nil)
            }
            return tls.certificate.withCString { certificate in
                tls.key.withCString { key in
                    var pem = cg_mhd_tls(certificate_pem: certificate, key_pem: key)
                    return cg_mhd_start_app(sockaddr, address.isIPv6 ? 1 : 0, webAccessHandler, context.toOpaque(), &limits,
                                            webRequestCompleted, &pem, logWebMHD, nil)
                }
            }
        }
        guard let started else {
            let reason = SystemError.current("MHD_start_daemon").errno
            context.release()
            if reason == EADDRINUSE {
                throw WebError(.portInUse, "port \(address.port) on \(address.urlHost) is in use by another program; stop it or set "
                               + "[web] listen to another port")
            }
            if tls != nil {
                throw WebError(.listenFailed, "cannot start HTTPS on \(address) (\(SystemError.reason(reason))); the libmicrohttpd line "
                               + "before this says why (the certificate or key, or the address)")
            }
            throw WebError(.listenFailed, "cannot listen on \(address) (\(SystemError.reason(reason))); is the address not on this host?")
        }
        daemon = started
        self.context = context
        let fd = cg_mhd_listen_fd(started)
        self.address = (fd >= 0 ? ListenAddress.local(of: fd) : nil) ?? address
    }

    /// Closes every connection and joins MHD's thread. Blocks: not on the cooperative pool.
    func stop() {
        cg_MHD_stop_daemon(daemon)
        context.release()
    }
}

private final class WebDaemonContext: Sendable {
    let handler: WebRequestHandler
    init(handler: WebRequestHandler) { self.handler = handler }
}

/// One POST's body while it arrives.
private final class UploadBuffer {
    var bytes: [UInt8] = []
    var tooLarge = false
}

private let logger = Logger(label: "web")

private let logWebMHD: cg_mhd_log_function = { _, message in
    guard let message else { return }
    logger.notice("libmicrohttpd: \(String(cString: message))")
}

private let webRequestCompleted: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let pointer = requestContext.pointee else { return }
    Unmanaged<UploadBuffer>.fromOpaque(pointer).release()
    requestContext.pointee = nil
}

private let webAccessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, requestContext in
    guard let cls, let connection, let url, let method, let requestContext else { return cg_mhd_refuse() }
    let handler = Unmanaged<WebDaemonContext>.fromOpaque(cls).takeUnretainedValue().handler
    let methodText = String(cString: method)
    if methodText == "POST" {
        // First call: the head only. Then the body in pieces; then a last call with none.
        guard let pointer = requestContext.pointee else {
            requestContext.pointee = Unmanaged.passRetained(UploadBuffer()).toOpaque()
            return cg_mhd_allow()
        }
        let buffer = Unmanaged<UploadBuffer>.fromOpaque(pointer).takeUnretainedValue()
        if let uploadSize, uploadSize.pointee > 0 {
            if let uploadData, !buffer.tooLarge {
                let piece = UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
                let limit = WebRequest.maximumBody(for: String(cString: url))
                if buffer.bytes.count + piece.count > limit {
                    buffer.tooLarge = true
                } else {
                    buffer.bytes.append(contentsOf: piece)
                }
            }
            uploadSize.pointee = 0
            return cg_mhd_allow()
        }
    }
    func header(_ name: String) -> String? {
        guard let value = cg_mhd_request_header(connection, name) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: value, count: strlen(value)).prefix(4096), as: UTF8.self)
    }
    let target = String(decoding: UnsafeRawBufferPointer(start: url, count: strnlen(url, 2048)), as: UTF8.self)
    var request = WebRequest(method: methodText, target: target, cookie: header("Cookie"), contentType: header("Content-Type"),
                             requestedWith: header("X-Requested-With"), host: header("Host"), origin: header("Origin"))
    if let pointer = requestContext.pointee {
        let buffer = Unmanaged<UploadBuffer>.fromOpaque(pointer).takeUnretainedValue()
        request.body = buffer.bytes
        request.bodyTooLarge = buffer.tooLarge
    }
    let answer = handler.respond(to: request)
    let response = answer.body.withUnsafeBytes { cg_mhd_response_copy($0.baseAddress, $0.count) }
    guard let response else { return cg_mhd_refuse() }
    defer { cg_MHD_destroy_response(response) }
    for (name, value) in answer.headers {
        _ = cg_MHD_add_response_header(response, name, value)
    }
    return cg_MHD_queue_response(connection, UInt32(answer.status), response)
}
