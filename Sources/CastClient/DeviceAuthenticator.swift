import CastProtocol

/// The seam to device authentication: makes challenges and checks answers.
/// The daemon plugs in `DeviceAuthVerifier` (module DeviceAuth, on OpenSSL);
/// CastClient itself never touches OpenSSL.
public protocol DeviceAuthenticator: Sendable {
    /// A challenge with a fresh nonce.
    func makeChallenge() throws(DeviceAuthError) -> AuthChallenge
    /// Checks the receiver's answer (a serialized DeviceAuthMessage) to
    /// `challenge`, bound to the TLS certificate the receiver presented.
    func verify(reply: [UInt8], to challenge: AuthChallenge, peerCertificate: [UInt8]?) -> Result<DeviceAuthResult, DeviceAuthError>
}

/// `[cast] authentication`: what to do about device authentication.
public enum AuthenticationPolicy: String, Sendable, CaseIterable {
    /// Do not challenge the receiver.
    case off
    /// Challenge, log and show the result, carry on either way (the default).
    case warn
    /// Challenge; refuse every command to a receiver that did not pass.
    case require
}

/// Where device authentication of the current (or last) connection stands.
public enum DeviceAuthState: Sendable, Equatable {
    /// Not done: the policy is off (or no authenticator is configured).
    case off
    /// The challenge is in flight.
    case pending
    case authenticated(DeviceAuthResult)
    case failed(DeviceAuthError)

    /// The short word for status lines: off, pending, ok, failed.
    public var summary: String {
        switch self {
        case .off: "off"
        case .pending: "pending"
        case .authenticated(let result): result.audioOnly ? "ok (audio only)" : "ok"
        case .failed(let error): "failed (\(error.code.rawValue))"
        }
    }
}
