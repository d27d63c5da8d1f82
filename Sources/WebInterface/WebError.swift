/// A failure of the web interface: its settings, its password file or its
/// server. Says what happened, where, and what to do; never holds a secret.
public struct WebError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The password file is missing, unreadable or not a hash written by `web-password`.
        case passwordFile = "web-password-file"
        /// `web-password` could not hash or write.
        case hashing = "web-hashing"
        /// libmicrohttpd could not be loaded.
        case library = "web-library"
        case portInUse = "web-port-in-use"
        case listenFailed = "web-listen-failed"
        /// The HTTPS certificate or key could not be read, made or kept.
        case certificate = "web-certificate"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message alone: the service group names the part ("web failed: ...").
    public var description: String { message }
}
