/// A media server failure: what happened, where, and what to do.
public struct MediaServerError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable {
        /// A `[media] roots` entry that cannot be served.
        case badRoot = "bad-root"
        /// `[media] cors-origin` is not `*` or an origin.
        case badCORSOrigin = "bad-cors-origin"
        /// libmicrohttpd could not listen (address in use, not local, ...).
        case listenFailed = "listen-failed"
        /// The configured port is taken by another program.
        case portInUse = "port-in-use"
        /// No route (or no numeric address) toward the receiver.
        case routeUnavailable = "route-unavailable"
        /// A local file that is not under any root, or not servable.
        case notServable = "not-servable"
        /// A URL was asked for before the server listens.
        case notListening = "not-listening"
        /// libmicrohttpd is not installed (it is loaded when [media] first starts).
        case library = "library-missing"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "media server: \(message)" }
}
