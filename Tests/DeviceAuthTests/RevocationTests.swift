#if canImport(Glibc)
import Glibc
#endif
import CastProtocol
import TestSupport
import XCTest
@testable import DeviceAuth

/// Cast CRLs (Chromium's revocation.proto) in `AuthResponse.crl`, signed by a
/// test CRL signer under the test CRL root.
final class RevocationTests: XCTestCase {
    private var anchors: TrustAnchors!
    private var tlsCertificate: [UInt8] = []
    private var device: DeviceCredentials!
    private var signer: DeviceCredentials!
    private let now = Int64(time(nil))

    override func setUpWithError() throws {
        anchors = try TrustAnchors.load(directory: TestPKI.path("anchors"))
        tlsCertificate = try XCTUnwrap(X509Certificate.certificates(pem: TestPKI.read("tls.pem")).first).der
        device = try DeviceCredentials.load(directory: TestPKI.path("sim-valid"))
        signer = try DeviceCredentials(keyPEM: TestPKI.read("crl-signer.key"), certificatePEM: TestPKI.read("crl-signer.pem"))
    }

    private func bundle(_ tbs: CastTBSCRL, signedBy credentials: DeviceCredentials? = nil) throws -> [UInt8] {
        let by = credentials ?? signer!
        let body = tbs.serialized()
        return CastCRLBundle(crls: [.init(tbsCRL: body, signerCertificate: by.certificate.der,
                                          signature: try by.sign(body, hash: .sha256))]).serialized()
    }

    private func verify(crl: [UInt8], anchors: TrustAnchors? = nil) throws -> Result<DeviceAuthResult, DeviceAuthError> {
        let verifier = DeviceAuthVerifier(anchors: anchors ?? self.anchors)
        let challenge = try verifier.makeChallenge()
        var response = try device.response(nonce: try XCTUnwrap(challenge.senderNonce), hashAlgorithm: .sha256,
                                           tlsCertificate: tlsCertificate)
        response.crl = crl
        return verifier.verify(reply: DeviceAuthMessage(response: response).serialized(), to: challenge,
                               peerCertificate: tlsCertificate)
    }

    private var deviceKeyHash: [UInt8] {
        get throws { RSASignature.sha256(try XCTUnwrap(device.certificate.subjectPublicKeyInfo)) }
    }

    private var intermediateKeyHash: [UInt8] {
        get throws { RSASignature.sha256(try XCTUnwrap(device.intermediates.first?.subjectPublicKeyInfo)) }
    }

    func testAVerifiedCRLThatRevokesNothingIsRecordedAsChecked() throws {
        let crl = try bundle(CastTBSCRL(notBeforeSeconds: UInt64(now - 3600), notAfterSeconds: UInt64(now + 86400),
                                        revokedPublicKeyHashes: [[UInt8](repeating: 0x11, count: 32)]))
        XCTAssertEqual(try verify(crl: crl).get().revocation, .checked)
    }

    func testARevokedDeviceKeyFails() throws {
        let crl = try bundle(CastTBSCRL(notBeforeSeconds: UInt64(now - 3600), notAfterSeconds: UInt64(now + 86400),
                                        revokedPublicKeyHashes: [try deviceKeyHash]))
        guard case .failure(let error) = try verify(crl: crl) else { return XCTFail("a revoked key was accepted") }
        XCTAssertEqual(error.code, .certificateRevoked)
    }

    func testARevokedSerialNumberFails() throws {
        let serial = try XCTUnwrap(device.certificate.serialNumber)
        let range = CastTBSCRL.SerialNumberRange(issuerPublicKeyHash: try intermediateKeyHash,
                                                 firstSerialNumber: serial, lastSerialNumber: serial)
        let crl = try bundle(CastTBSCRL(notBeforeSeconds: UInt64(now - 3600), notAfterSeconds: UInt64(now + 86400),
                                        revokedSerialNumberRanges: [range]))
        guard case .failure(let error) = try verify(crl: crl) else { return XCTFail("a revoked serial was accepted") }
        XCTAssertEqual(error.code, .certificateRevoked)
        XCTAssertTrue(error.message.contains("serial number \(serial)"), error.message)
    }

    func testACRLThatCannotBeVerifiedIsIgnoredAndSaysWhy() throws {
        let revoking = CastTBSCRL(notBeforeSeconds: UInt64(now - 3600), notAfterSeconds: UInt64(now + 86400),
                                  revokedPublicKeyHashes: [try deviceKeyHash])
        // Signed by the device itself, which no CRL root vouches for.
        let untrusted = try bundle(revoking, signedBy: device)
        guard case .unverifiable(let reason) = try verify(crl: untrusted).get().revocation else { return XCTFail() }
        XCTAssertTrue(reason.contains("not trusted"), reason)

        let expired = try bundle(CastTBSCRL(notBeforeSeconds: 1, notAfterSeconds: 2))
        guard case .unverifiable(let window) = try verify(crl: expired).get().revocation else { return XCTFail() }
        XCTAssertTrue(window.contains("validity window"), window)

        guard case .unverifiable(let garbage) = try verify(crl: [0xFF, 0x01]).get().revocation else { return XCTFail() }
        XCTAssertTrue(garbage.contains("CrlBundle"), garbage)

        var tampered = try CastCRLBundle(serialized: try bundle(revoking))
        tampered.crls[0].signature?[3] ^= 0x40
        guard case .unverifiable(let signature) = try verify(crl: tampered.serialized()).get().revocation else { return XCTFail() }
        XCTAssertTrue(signature.contains("signature"), signature)
    }

    func testWithoutCRLAnchorsTheCRLIsNotChecked() throws {
        let deviceOnly = TrustAnchors(deviceRoots: anchors.deviceRoots, source: "anchors")
        let crl = try bundle(CastTBSCRL(notBeforeSeconds: UInt64(now - 3600), notAfterSeconds: UInt64(now + 86400),
                                        revokedPublicKeyHashes: [try deviceKeyHash]))
        guard case .unverifiable(let reason) = try verify(crl: crl, anchors: deviceOnly).get().revocation else {
            return XCTFail()
        }
        XCTAssertTrue(reason.contains("no CRL trust anchor"), reason)
    }
}
