#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import CastProtocol

/// The sender side of Cast device authentication: makes challenges and
/// checks the receiver's answers, in the order and with the rules of
/// Chromium's cast_auth_util.cc, stricter where noted.
///
/// 1. the peer's TLS certificate: valid now, and expiring within 4 days
///    (receivers use short-lived self-signed certificates);
/// 2. the answer is an `AuthResponse` (an `AuthError` fails);
/// 3. its `sender_nonce` is the one sent. Chromium enforces this only behind
///    a feature flag, for legacy receivers; here it is always enforced so a
///    recorded answer cannot be replayed;
/// 4. the chain `client_auth_certificate` + `intermediate_certificate` up to
///    a trust anchor: dates, CA bits, key usage of CAs, purpose TLS client,
///    RSA keys of 2048 bits or more;
/// 5. the device certificate: a keyUsage with digitalSignature, a common
///    name, an RSA key;
/// 6. the CRL, if any (advisory: see `RevocationCheck`);
/// 7. the signature: RSASSA-PKCS1-v1_5 over `sender_nonce || DER(peer TLS
///    certificate)` with the device key. SHA-256 is asked for; SHA-1 answers
///    are accepted and flagged, as Chromium does unless its
///    `CastSHA256Enforced` feature is on (legacy receivers);
/// 8. the audio-only policy OID on any certificate of the verified chain.
public struct DeviceAuthVerifier: Sendable {
    /// The audio-only policy of Cast device certificates.
    public static let audioOnlyPolicy = "1.3.6.1.4.1.11129.2.5.2"
    /// Chromium's kMaxSelfSignedCertLifetimeInDays.
    public static let maximumTLSCertificateLifetime: Int64 = 4 * 86400
    public static let nonceSize = 16

    public let anchors: TrustAnchors
    /// Wall-clock time in Unix seconds (injected for tests).
    private let clock: @Sendable () -> Int64

    public init(anchors: TrustAnchors, clock: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        self.anchors = anchors
        self.clock = clock
    }

    /// A challenge with a fresh random 16-byte nonce, asking for SHA-256.
    public func makeChallenge() throws(DeviceAuthError) -> AuthChallenge {
        var nonce = [UInt8](repeating: 0, count: Self.nonceSize)
        guard RAND_bytes(&nonce, Int32(nonce.count)) == 1 else {
            throw DeviceAuthError(.internalError, "cannot draw a random nonce: \(OpenSSLErrors.drain())")
        }
        return .sha256(nonce: nonce)
    }

    /// Checks `reply` (the BINARY payload of the receiver's deviceauth
    /// message) against `challenge` and the TLS certificate the receiver
    /// presented on this connection.
    public func verify(reply: [UInt8], to challenge: AuthChallenge,
                       peerCertificate: [UInt8]?) -> Result<DeviceAuthResult, DeviceAuthError> {
        let now = clock()
        guard !anchors.deviceRoots.isEmpty else {
            return .failure(DeviceAuthError(.noTrustAnchors,
                                            "no trust anchor is loaded (from \(anchors.source)), so no receiver can be authenticated; put the Cast root certificates in the [cast] trust-anchors directory (see the device authentication docs) or set [cast] authentication = off"))
        }

        // 1. The TLS certificate this connection presented.
        guard let peerCertificate, !peerCertificate.isEmpty else {
            return .failure(DeviceAuthError(.noPeerCertificate,
                                            "the connection has no peer TLS certificate to bind the answer to (not a TLS connection?)"))
        }
        let tls: X509Certificate
        do {
            tls = try X509Certificate(der: peerCertificate)
        } catch {
            return .failure(DeviceAuthError(.certificateInvalid, "the receiver's TLS certificate is unreadable: \(error)"))
        }
        if let failure = Self.checkTLSWindow(tls, now: now) { return .failure(failure) }

        // 2. The answer.
        let message: DeviceAuthMessage
        do {
            message = try DeviceAuthMessage(serialized: reply)
        } catch {
            return .failure(DeviceAuthError(.malformedResponse, "the receiver's answer is not a DeviceAuthMessage: \(error)"))
        }
        if let error = message.error {
            return .failure(DeviceAuthError(.receiverError,
                                            "the receiver refused the challenge with \(error.errorType.name)\(Self.hint(error.errorType))"))
        }
        guard let response = message.response else {
            return .failure(DeviceAuthError(.malformedResponse, "the receiver's answer holds neither a response nor an error"))
        }

        // 3. The nonce.
        let nonce = challenge.senderNonce ?? []
        guard response.senderNonce == nonce else {
            let what = response.senderNonce?.isEmpty ?? true ? "carries no nonce" : "carries another nonce than the one sent"
            return .failure(DeviceAuthError(.nonceMismatch,
                                            "the receiver's answer \(what): a replayed answer, or a legacy receiver that cannot be authenticated"))
        }

        // 4.-6. The certificates.
        let chain: [X509Certificate]
        do {
            chain = try [X509Certificate(der: response.clientAuthCertificate)]
                + response.intermediateCertificates.map { certificate throws(DeviceAuthFailure) in
                    try X509Certificate(der: certificate)
                }
        } catch {
            return .failure(DeviceAuthError(.certificateInvalid, "a certificate in the receiver's answer is unreadable: \(error)"))
        }
        let device = chain[0]
        let verified: [X509Certificate]
        switch CertificateChain.verify(leaf: device, intermediates: Array(chain.dropFirst()), anchors: anchors.deviceRoots,
                                       purpose: X509_PURPOSE_SSL_CLIENT, at: now) {
        case .success(let path): verified = path
        case .failure(let failure): return .failure(failure.deviceAuthError(chain: chain, anchors: anchors.source))
        }
        guard let usage = device.keyUsage, usage & UInt32(KU_DIGITAL_SIGNATURE) != 0 else {
            return .failure(DeviceAuthError(.certificateRestrictions,
                                            "the device certificate (\(device.displayName)) lacks the digitalSignature key usage, so it may not sign challenges"))
        }
        guard let name = device.commonName, !name.isEmpty else {
            return .failure(DeviceAuthError(.certificateRestrictions, "the device certificate has no common name"))
        }
        guard device.isRSA, let key = device.publicKey else {
            return .failure(DeviceAuthError(.certificateRestrictions,
                                            "the device certificate (\(device.displayName)) has no RSA key; Cast signatures are RSASSA-PKCS1-v1_5"))
        }
        var revocation = DeviceAuthResult.Revocation.notProvided
        if let crl = response.crl, !crl.isEmpty {
            switch RevocationCheck.check(crl, chain: verified, crlRoots: anchors.crlRoots, anchors: anchors.source, at: now) {
            case .checked: revocation = .checked
            case .unverifiable(let reason): revocation = .unverifiable(reason)
            case .revoked(let reason):
                return .failure(DeviceAuthError(.certificateRevoked, "\(reason): the receiver's certificate has been withdrawn by Google"))
            }
        }

        // 7. The signature over this session.
        guard !response.signature.isEmpty else {
            return .failure(DeviceAuthError(.signatureInvalid, "the receiver's answer carries an empty signature"))
        }
        let hash = response.effectiveHashAlgorithm
        guard hash == .sha256 || hash == .sha1 else {
            return .failure(DeviceAuthError(.unsupportedHashAlgorithm,
                                            "the receiver signed with \(hash.name); only SHA-256 (and SHA-1 for legacy receivers) is accepted"))
        }
        guard RSASignature.verify(response.signature, over: nonce + peerCertificate, key: key, hash: hash) else {
            if RSASignature.isWellFormed(response.signature, key: key, hash: hash) {
                return .failure(DeviceAuthError(.tlsCertificateMismatch,
                                                "the device key signed another TLS certificate or nonce than this connection's: a man in the middle relays a genuine receiver, or the answer was replayed"))
            }
            return .failure(DeviceAuthError(.signatureInvalid,
                                            "the signature was not made by the device certificate's key (\(device.displayName)): the receiver is not the device its certificate names"))
        }

        // 8. Policies.
        let audioOnly = verified.contains { $0.hasPolicy(Self.audioOnlyPolicy) == true }
        return .success(DeviceAuthResult(audioOnly: audioOnly, deviceName: name, revocation: revocation, usedSHA1: hash == .sha1))
    }

    /// Chromium's VerifyTLSCertificate: started, not expired, and expiring
    /// within `maximumTLSCertificateLifetime` from now.
    static func checkTLSWindow(_ certificate: X509Certificate, now: Int64) -> DeviceAuthError? {
        guard let start = certificate.notBefore, let end = certificate.notAfter else {
            return DeviceAuthError(.tlsCertificateExpired, "the receiver's TLS certificate has unreadable validity dates")
        }
        if start > now {
            return DeviceAuthError(.tlsCertificateExpired,
                                   "the receiver's TLS certificate is not valid yet; check this gateway's clock (is NTP running?)")
        }
        if end < now {
            return DeviceAuthError(.tlsCertificateExpired,
                                   "the receiver's TLS certificate has expired; check this gateway's clock, otherwise restart the receiver")
        }
        if end - now > maximumTLSCertificateLifetime {
            return DeviceAuthError(.tlsCertificateExpired,
                                   "the receiver's TLS certificate is valid for \((end - now) / 86400) more days; Cast receivers use certificates of at most 4 days, so this is not a genuine receiver's")
        }
        return nil
    }

    private static func hint(_ type: AuthError.ErrorType) -> String {
        switch type {
        case .noTLS: " (it sees no TLS connection: something between them terminates TLS)"
        case .signatureAlgorithmUnavailable: " (it cannot sign with the algorithm asked for)"
        case .internalError: " (it has no device credentials or failed internally: it may not be a genuine Cast device)"
        case .unknown: ""
        }
    }
}
