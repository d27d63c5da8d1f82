/// A violation of the Cast v2 wire format by the peer.
public struct CastProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Machine-readable kinds of protocol violation.
    public enum Code: String, Sendable {
        case frameTooLarge = "frame-too-large"
        case emptyFrame = "empty-frame"
        case truncatedMessage = "truncated-message"
        case malformedVarint = "malformed-varint"
        case unsupportedWireType = "unsupported-wire-type"
        case missingRequiredField = "missing-required-field"
        case invalidFieldValue = "invalid-field-value"
        case invalidUTF8 = "invalid-utf8"
        case invalidJSON = "invalid-json"
        /// The peer's first bytes are text (e.g. an HTTP response), not a Cast frame.
        case notCast = "not-cast"
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// Whether the byte stream cannot be resynchronized after this error, so
    /// the connection must be closed (a broken length, or not Cast at all).
    public var losesFraming: Bool {
        code == .frameTooLarge || code == .emptyFrame || code == .notCast
    }

    public var description: String { "Cast protocol error (\(code.rawValue)): \(detail)" }
}
