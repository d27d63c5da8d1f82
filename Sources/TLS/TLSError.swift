/// A failure to reach or talk to a TLS peer.
public struct TLSError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The host name could not be resolved.
        case resolveFailed = "resolve-failed"
        /// TCP connect was refused, unreachable or timed out.
        case connectFailed = "connect-failed"
        /// The TLS handshake failed or timed out.
        case handshakeFailed = "handshake-failed"
        /// Reading or writing failed on an established connection.
        case ioFailed = "io-failed"
        /// The connection is closed.
        case closed
        /// Setting up OpenSSL (context, key, certificate) failed.
        case setupFailed = "setup-failed"
        /// A listening socket could not be created.
        case listenFailed = "listen-failed"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
