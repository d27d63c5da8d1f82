/// Why a receiver failed device authentication: a code for machines, and a
/// message that says what happened and what to do.
///
/// It lives with the wire types so that the verifier (module DeviceAuth, on
/// OpenSSL) and the client (module CastClient, no OpenSSL) share it.
public struct DeviceAuthError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No trust anchor is configured, so nothing can be verified.
        case noTrustAnchors = "no-trust-anchors"
        /// The transport gave no peer TLS certificate to bind the answer to.
        case noPeerCertificate = "no-peer-certificate"
        /// The receiver did not answer the challenge in time (or the link dropped).
        case noResponse = "no-response"
        /// The answer was not a DeviceAuthMessage with a response.
        case malformedResponse = "malformed-response"
        /// The receiver answered with an AuthError.
        case receiverError = "receiver-error"
        /// A certificate in the answer could not be parsed.
        case certificateInvalid = "certificate-invalid"
        /// The chain does not lead to a configured trust anchor.
        case chainUntrusted = "chain-untrusted"
        /// A certificate of the chain is past its validity.
        case certificateExpired = "certificate-expired"
        /// A certificate of the chain is not valid yet.
        case certificateNotYetValid = "certificate-not-yet-valid"
        /// Key usage, CA bits, purpose, key size or name of a certificate do not fit.
        case certificateRestrictions = "certificate-restrictions"
        /// A verified CRL revokes a certificate of the chain.
        case certificateRevoked = "certificate-revoked"
        /// The receiver used a digest this gateway does not accept.
        case unsupportedHashAlgorithm = "unsupported-hash-algorithm"
        /// The signature was not made by the device certificate's key.
        case signatureInvalid = "signature-invalid"
        /// The device key signed, but not this connection's TLS certificate and nonce.
        case tlsCertificateMismatch = "tls-certificate-mismatch"
        /// The answer carries another nonce than the one sent (a replay).
        case nonceMismatch = "nonce-mismatch"
        /// The peer's TLS certificate is expired, not yet valid, or too long-lived.
        case tlsCertificateExpired = "tls-certificate-expired"
        /// Something on this side failed (random numbers, memory).
        case internalError = "internal-error"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// What a successful device authentication established.
public struct DeviceAuthResult: Sendable, Equatable {
    /// What the CRL in the answer told, as far as it could be checked.
    public enum Revocation: Sendable, Equatable {
        /// The receiver sent no CRL.
        case notProvided
        /// A CRL was verified and revokes nothing in the chain.
        case checked
        /// A CRL was sent but could not be verified (reason); it was ignored.
        case unverifiable(String)
    }

    /// The device certificate carries (or inherits) the audio-only policy
    /// 1.3.6.1.4.1.11129.2.5.2: senders should not send video.
    public var audioOnly: Bool
    /// The device certificate's subject common name (e.g. the device's serial).
    public var deviceName: String
    public var revocation: Revocation
    /// The receiver signed with SHA-1 though SHA-256 was asked (legacy receivers).
    public var usedSHA1: Bool

    public init(audioOnly: Bool, deviceName: String, revocation: Revocation, usedSHA1: Bool) {
        self.audioOnly = audioOnly
        self.deviceName = deviceName
        self.revocation = revocation
        self.usedSHA1 = usedSHA1
    }
}
