#if canImport(Glibc)
import Glibc
#endif
import COpenSSL

/// What a failed TLS handshake says about the peer, in words for a user.
///
/// The usual mistakes are a device that is not a Cast device, or the right
/// device on the wrong port: a plaintext server that hangs up when it sees a
/// ClientHello, or one (often HTTP) that answers it with text. OpenSSL reports
/// these as an empty error queue, an EOF, or "wrong version number", none of
/// which tells the user what is wrong.
enum HandshakeFailure {
    /// `sslError` is `SSL_get_error`'s code, `systemErrno` the errno right after
    /// the handshake call, `queuedError` the first entry of OpenSSL's error
    /// queue (0 if empty) and `queuedText` the queue as text.
    static func describe(peer: String, sslError: Int32, systemErrno: Int32, queuedError: UInt, queuedText: String) -> String {
        let fromSSL = queuedError != 0 && ERR_GET_LIB(queuedError) == ERR_LIB_SSL
        let reason = fromSSL ? ERR_GET_REASON(queuedError) : 0
        let closed: Bool
        switch sslError {
        case SSL_ERROR_ZERO_RETURN: closed = true
        case SSL_ERROR_SYSCALL: closed = queuedError == 0 && [0, ECONNRESET, EPIPE].contains(systemErrno)
        case SSL_ERROR_SSL: closed = queuedError == 0 || reason == SSL_R_UNEXPECTED_EOF_WHILE_READING
        default: closed = false
        }
        if closed {
            return "\(peer) closed the connection during the TLS handshake: is it a Cast device?"
        }
        if [SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG, SSL_R_UNKNOWN_PROTOCOL]
            .contains(reason) {
            return "\(peer) does not speak Cast: it answered the TLS handshake with something else (\(queuedText));"
                + " is it a Cast device, and is this its Cast port (usually 8009)?"
        }
        if sslError == SSL_ERROR_SYSCALL, queuedError == 0 {
            return "TLS handshake with \(peer) failed: \(String(cString: strerror(systemErrno)))"
        }
        return "TLS handshake with \(peer) failed: \(queuedText)"
    }
}
