#if canImport(Glibc)
import Glibc
#endif
import CastProtocol
import TestSupport
import XCTest
@testable import DeviceAuth

/// The verifier against a test PKI made by the openssl CLI (Tests/pki).
final class DeviceAuthVerifierTests: XCTestCase {
    private var anchors: TrustAnchors!
    private var tlsCertificate: [UInt8] = []
    private var otherTLSCertificate: [UInt8] = []

    override func setUpWithError() throws {
        anchors = try TrustAnchors.load(directory: TestPKI.path("anchors"))
        tlsCertificate = try certificateDER("tls.pem")
        otherTLSCertificate = try certificateDER("tls-long.pem")
    }

    private func certificateDER(_ name: String) throws -> [UInt8] {
        try XCTUnwrap(X509Certificate.certificates(pem: TestPKI.read(name)).first).der
    }

    private func credentials(_ directory: String) throws -> DeviceCredentials {
        try DeviceCredentials.load(directory: TestPKI.path(directory))
    }

    /// A challenge, and the simulated receiver's answer to it.
    private func exchange(_ directory: String = "sim-valid", hash: AuthHashAlgorithm = .sha256,
                          signedCertificate: [UInt8]? = nil,
                          edit: (inout AuthResponse) throws -> Void = { _ in }) throws -> (AuthChallenge, [UInt8]) {
        let challenge = try DeviceAuthVerifier(anchors: anchors).makeChallenge()
        var response = try credentials(directory).response(nonce: try XCTUnwrap(challenge.senderNonce), hashAlgorithm: hash,
                                                           tlsCertificate: signedCertificate ?? tlsCertificate)
        try edit(&response)
        return (challenge, DeviceAuthMessage(response: response).serialized())
    }

    private func verify(_ exchange: (AuthChallenge, [UInt8]), peer: [UInt8]? = nil, anchors: TrustAnchors? = nil,
                        at time: Int64? = nil) -> Result<DeviceAuthResult, DeviceAuthError> {
        let verifier = DeviceAuthVerifier(anchors: anchors ?? self.anchors, clock: { time ?? Int64(Glibc.time(nil)) })
        return verifier.verify(reply: exchange.1, to: exchange.0, peerCertificate: peer ?? tlsCertificate)
    }

    private func assertFails(_ result: Result<DeviceAuthResult, DeviceAuthError>, _ code: DeviceAuthError.Code,
                             mentioning text: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        switch result {
        case .success(let success):
            XCTFail("expected \(code), got success \(success)", file: file, line: line)
        case .failure(let error):
            XCTAssertEqual(error.code, code, error.message, file: file, line: line)
            if let text { XCTAssertTrue(error.message.contains(text), error.message, file: file, line: line) }
        }
    }

    // MARK: Challenges

    func testEveryChallengeHasAFreshSixteenByteNonceAndAsksForSHA256() throws {
        let verifier = DeviceAuthVerifier(anchors: anchors)
        let first = try verifier.makeChallenge()
        let second = try verifier.makeChallenge()
        XCTAssertEqual(first.senderNonce?.count, 16)
        XCTAssertNotEqual(first.senderNonce, second.senderNonce)
        XCTAssertEqual(first.hashAlgorithm, .sha256)
        XCTAssertEqual(first.signatureAlgorithm, .rsassaPKCS1v15)
    }

    // MARK: Accepted

    func testAValidChainIsAuthenticated() throws {
        let result = try verify(exchange()).get()
        XCTAssertEqual(result, DeviceAuthResult(audioOnly: false, deviceName: "test-device-0001", revocation: .notProvided,
                                                usedSHA1: false))
    }

    func testTheAudioOnlyPolicyIsRecorded() throws {
        let result = try verify(exchange("sim-audio")).get()
        XCTAssertTrue(result.audioOnly)
        XCTAssertEqual(result.deviceName, "test-audio-device-0002")
    }

    func testALegacySHA1SignatureIsAcceptedAndFlagged() throws {
        let result = try verify(exchange(hash: .sha1)).get()
        XCTAssertTrue(result.usedSHA1)
    }

    // MARK: Rejected

    func testAWrongSignatureFails() throws {
        let answer = try exchange { $0.signature[$0.signature.count / 2] ^= 0x01 }
        assertFails(verify(answer), .signatureInvalid)
    }

    func testASignatureOverAnotherTLSCertificateFails() throws {
        // A man in the middle relays a genuine receiver: the receiver signs
        // the certificate it sees (the attacker's), not the one we see.
        let answer = try exchange(signedCertificate: otherTLSCertificate)
        assertFails(verify(answer), .tlsCertificateMismatch, mentioning: "man in the middle")
    }

    func testAnExpiredDeviceCertificateFails() throws {
        assertFails(verify(try exchange("sim-expired")), .certificateExpired, mentioning: "test-device-expired")
    }

    func testAnUnknownRootFails() throws {
        assertFails(verify(try exchange("sim-unknown-root")), .chainUntrusted, mentioning: "trust anchor")
    }

    func testAMissingIntermediateFails() throws {
        assertFails(verify(try exchange { $0.intermediateCertificates = [] }), .chainUntrusted)
    }

    func testAReplayedAnswerToAnOldNonceFails() throws {
        let old = try exchange()
        let fresh = try DeviceAuthVerifier(anchors: anchors).makeChallenge()
        assertFails(verify((fresh, old.1)), .nonceMismatch, mentioning: "replayed")
        // Rewriting the nonce field does not help: the signature covers the old one.
        var replayed = try XCTUnwrap(DeviceAuthMessage(serialized: old.1).response)
        replayed.senderNonce = fresh.senderNonce
        assertFails(verify((fresh, DeviceAuthMessage(response: replayed).serialized())), .tlsCertificateMismatch)
    }

    func testAMissingNonceFails() throws {
        assertFails(verify(try exchange { $0.senderNonce = nil }), .nonceMismatch, mentioning: "no nonce")
    }

    func testADeviceCertificateWithoutDigitalSignatureFails() throws {
        assertFails(verify(try exchange("sim-no-signing")), .certificateRestrictions)
    }

    func testAWeakDeviceKeyFails() throws {
        assertFails(verify(try exchange("sim-weak-key")), .certificateRestrictions, mentioning: "1024-bit")
    }

    func testAnUnknownHashAlgorithmFails() throws {
        assertFails(verify(try exchange { $0.hashAlgorithm = .unknown(9) }), .unsupportedHashAlgorithm)
    }

    func testAReceiverErrorIsReported() throws {
        let challenge = try DeviceAuthVerifier(anchors: anchors).makeChallenge()
        let reply = DeviceAuthMessage(error: AuthError(errorType: .noTLS)).serialized()
        assertFails(verify((challenge, reply)), .receiverError, mentioning: "NO_TLS")
    }

    func testGarbageIsAMalformedResponse() throws {
        let challenge = try DeviceAuthVerifier(anchors: anchors).makeChallenge()
        assertFails(verify((challenge, [0xFF, 0xFF, 0xFF])), .malformedResponse)
        assertFails(verify((challenge, DeviceAuthMessage(challenge: challenge).serialized())), .malformedResponse)
        assertFails(verify(try exchange { $0.clientAuthCertificate = [0x30, 0x03, 0x02, 0x01, 0x01] }), .certificateInvalid)
    }

    // MARK: The TLS certificate

    func testATLSCertificateLivingLongerThanFourDaysFails() throws {
        let answer = try exchange(signedCertificate: otherTLSCertificate)
        assertFails(verify(answer, peer: otherTLSCertificate), .tlsCertificateExpired, mentioning: "at most 4 days")
    }

    func testAnExpiredOrFutureTLSCertificateFails() throws {
        let answer = try exchange()
        let now = Int64(time(nil))
        assertFails(verify(answer, at: now + 3 * 86400), .tlsCertificateExpired, mentioning: "expired")
        assertFails(verify(answer, at: now - 86400), .tlsCertificateExpired, mentioning: "not valid yet")
    }

    func testNoPeerCertificateFails() throws {
        let answer = try exchange()
        let verifier = DeviceAuthVerifier(anchors: anchors)
        assertFails(verifier.verify(reply: answer.1, to: answer.0, peerCertificate: nil), .noPeerCertificate)
    }

    // MARK: Trust anchors

    func testNoTrustAnchorsFails() throws {
        let empty = TrustAnchors(deviceRoots: [], source: "/nowhere")
        assertFails(verify(try exchange(), anchors: empty), .noTrustAnchors, mentioning: "[cast] authentication = off")
    }

    func testAnotherRootDoesNotVouchForTheTestDevice() throws {
        let unknown = try TrustAnchors.load(directory: TestPKI.path("unknown-anchors"))
        XCTAssertEqual(unknown.deviceRoots.count, 1)
        XCTAssertEqual(unknown.crlRoots.count, 0)
        assertFails(verify(try exchange(), anchors: unknown), .chainUntrusted)
    }

    func testLoadingAMissingDirectoryFailsWithItsName() {
        XCTAssertThrowsError(try TrustAnchors.load(directory: "/nonexistent/cast-roots")) { error in
            XCTAssertEqual((error as? DeviceAuthError)?.code, .noTrustAnchors)
            XCTAssertTrue((error as? DeviceAuthError)?.message.contains("/nonexistent/cast-roots") ?? false)
        }
    }

    func testLoadsAnchorsAndCRLAnchors() {
        XCTAssertEqual(anchors.deviceRoots.map(\.commonName), ["Test Cast Root CA"])
        XCTAssertEqual(anchors.crlRoots.map(\.commonName), ["Test Cast CRL Root CA"])
    }
}
