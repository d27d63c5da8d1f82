import TestSupport
import XCTest
@testable import CastProtocol

/// Vectors produced by Google's Python protobuf encoder (protobuf 7.36) from
/// the device-auth messages of `cast_channel.proto` and Chromium's
/// `revocation.proto`, built as descriptors at run time (no protoc).
enum DeviceAuthVectors {
    /// challenge { signature_algorithm: RSASSA_PKCS1v15, sender_nonce: 00..0f, hash_algorithm: SHA256 }
    static let challenge = "0a1608011210000102030405060708090a0b0c0d0e0f1801"
    /// response { signature: 5a5a5a5a, client_auth_certificate: 3003020101,
    ///   intermediate_certificate: [300100, 3000], signature_algorithm: 1,
    ///   sender_nonce: 00..0f, hash_algorithm: SHA256, crl: 0a00 }
    static let response = "12300a045a5a5a5a120530030201011a033001001a02300020012a10000102030405060708090a0b0c0d0e0f30013a020a00"
    /// error { error_type: NO_TLS }
    static let error = "1a020801"
    /// TbsCrl { version 0, not_before 1700000000, not_after 1800000000, revoked_public_key_hashes [aa x32],
    ///   revoked_serial_number_ranges [{ issuer bb x32, first 5, last 300 }] }
    static let tbsCRL = "08001080e2cfaa061880a4a7da062220aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2a270a20bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb100518ac02"
    /// CrlBundle { crls [{ tbs_crl: tbsCRL, signer_cert: 3000, signature: 0102 }] }
    static let bundle = "0a630a59" + tbsCRL + "120230001a020102"
}

final class DeviceAuthMessageTests: XCTestCase {
    private let nonce: [UInt8] = Array(0...15)

    func testChallengeEncodesExactlyLikeTheThirdPartyEncoder() throws {
        let message = DeviceAuthMessage(challenge: .sha256(nonce: nonce))
        XCTAssertEqual(message.serialized(), hexBytes(DeviceAuthVectors.challenge))
        // By hand: 0a 16 = field 1 (challenge), 22 bytes: 08 01 (RSASSA_PKCS1v15),
        // 12 10 + 16 nonce bytes, 18 01 (SHA256).
        let decoded = try DeviceAuthMessage(serialized: hexBytes(DeviceAuthVectors.challenge))
        XCTAssertEqual(decoded.challenge?.senderNonce, nonce)
        XCTAssertEqual(decoded.challenge?.hashAlgorithm, .sha256)
        XCTAssertEqual(decoded.challenge?.signatureAlgorithm, .rsassaPKCS1v15)
        XCTAssertNil(decoded.response)
        XCTAssertNil(decoded.error)
    }

    func testResponseRoundTripsWithTheThirdPartyEncoder() throws {
        let expected = AuthResponse(signature: [0x5A, 0x5A, 0x5A, 0x5A], clientAuthCertificate: [0x30, 0x03, 0x02, 0x01, 0x01],
                                    intermediateCertificates: [[0x30, 0x01, 0x00], [0x30, 0x00]],
                                    signatureAlgorithm: .rsassaPKCS1v15, senderNonce: nonce, hashAlgorithm: .sha256,
                                    crl: [0x0A, 0x00])
        let decoded = try DeviceAuthMessage(serialized: hexBytes(DeviceAuthVectors.response))
        XCTAssertEqual(decoded.response, expected)
        XCTAssertEqual(DeviceAuthMessage(response: expected).serialized(), hexBytes(DeviceAuthVectors.response))
    }

    func testErrorRoundTrips() throws {
        let decoded = try DeviceAuthMessage(serialized: hexBytes(DeviceAuthVectors.error))
        XCTAssertEqual(decoded.error?.errorType, .noTLS)
        XCTAssertEqual(decoded.error?.errorType.name, "NO_TLS")
        XCTAssertEqual(DeviceAuthMessage(error: AuthError(errorType: .noTLS)).serialized(), hexBytes(DeviceAuthVectors.error))
    }

    func testProto2DefaultsApplyWhenFieldsAreAbsent() throws {
        // response { signature: 01, client_auth_certificate: 02 } and nothing else.
        let decoded = try DeviceAuthMessage(serialized: [0x12, 0x06, 0x0A, 0x01, 0x01, 0x12, 0x01, 0x02])
        let response = try XCTUnwrap(decoded.response)
        XCTAssertNil(response.hashAlgorithm)
        XCTAssertEqual(response.effectiveHashAlgorithm, .sha1)
        XCTAssertNil(response.senderNonce)
        XCTAssertEqual(response.intermediateCertificates, [])
    }

    func testUnknownFieldsAndEnumValuesAreKept() throws {
        // challenge { hash_algorithm: 7 } plus unknown field 9 (varint) at both levels.
        let decoded = try DeviceAuthMessage(serialized: [0x48, 0x05, 0x0A, 0x04, 0x18, 0x07, 0x48, 0x01])
        XCTAssertEqual(decoded.challenge?.hashAlgorithm, .unknown(7))
        XCTAssertEqual(decoded.challenge?.hashAlgorithm?.rawValue, 7)
    }

    func testRejectsMissingRequiredFieldsAndWrongWireTypes() {
        // response without client_auth_certificate.
        XCTAssertThrowsError(try DeviceAuthMessage(serialized: [0x12, 0x03, 0x0A, 0x01, 0x01])) { error in
            XCTAssertEqual((error as? CastProtocolError)?.code, .missingRequiredField)
        }
        // error {} without error_type.
        XCTAssertThrowsError(try DeviceAuthMessage(serialized: [0x1A, 0x00])) { error in
            XCTAssertEqual((error as? CastProtocolError)?.code, .missingRequiredField)
        }
        // challenge as a varint.
        XCTAssertThrowsError(try DeviceAuthMessage(serialized: [0x08, 0x01])) { error in
            XCTAssertEqual((error as? CastProtocolError)?.code, .invalidFieldValue)
        }
        // a length running past the end.
        XCTAssertThrowsError(try DeviceAuthMessage(serialized: [0x12, 0x7F, 0x0A])) { error in
            XCTAssertEqual((error as? CastProtocolError)?.code, .truncatedMessage)
        }
    }

    func testCRLBundleMatchesTheThirdPartyEncoder() throws {
        let tbs = CastTBSCRL(version: 0, notBeforeSeconds: 1_700_000_000, notAfterSeconds: 1_800_000_000,
                             revokedPublicKeyHashes: [[UInt8](repeating: 0xAA, count: 32)],
                             revokedSerialNumberRanges: [.init(issuerPublicKeyHash: [UInt8](repeating: 0xBB, count: 32),
                                                               firstSerialNumber: 5, lastSerialNumber: 300)])
        XCTAssertEqual(tbs.serialized(), hexBytes(DeviceAuthVectors.tbsCRL))
        XCTAssertEqual(try CastTBSCRL(serialized: hexBytes(DeviceAuthVectors.tbsCRL)), tbs)

        let bundle = CastCRLBundle(crls: [.init(tbsCRL: tbs.serialized(), signerCertificate: [0x30, 0x00], signature: [1, 2])])
        XCTAssertEqual(bundle.serialized(), hexBytes(DeviceAuthVectors.bundle))
        XCTAssertEqual(try CastCRLBundle(serialized: hexBytes(DeviceAuthVectors.bundle)), bundle)
    }
}
