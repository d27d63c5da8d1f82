import CastProtocol

/// Why a Cast operation failed, with a message fit for a user.
public struct CastError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The device could not be reached (connect or TLS failed).
        case deviceUnavailable = "device-unavailable"
        /// No connection right now (the client is reconnecting).
        case notConnected = "not-connected"
        /// The connection dropped while a request was in flight.
        case disconnected
        /// No reply within the request's time limit.
        case timeout
        /// The receiver refused to launch the app (LAUNCH_ERROR).
        case launchFailed = "launch-failed"
        /// The receiver rejected a request (INVALID_REQUEST, INVALID_PLAYER_STATE).
        case invalidRequest = "invalid-request"
        /// LOAD failed or was cancelled.
        case loadFailed = "load-failed"
        /// The media or receiver does not support the command (refused locally).
        case unsupportedCommand = "unsupported-command"
        /// A media command with no media session (nothing loaded).
        case noMediaSession = "no-media-session"
        /// The peer broke the protocol.
        case protocolError = "protocol-error"
        /// The client was stopped.
        case cancelled
        /// `[cast] authentication = require` and the receiver did not pass device authentication.
        case notAuthenticated = "not-authenticated"
    }

    public let code: Code
    public let message: String
    /// The receiver's own reason, when it gave one (e.g. `CANCELLED`, `NOT_FOUND`).
    public let reason: String?

    public init(_ code: Code, _ message: String, reason: String? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
    }

    public var description: String { message }
}
