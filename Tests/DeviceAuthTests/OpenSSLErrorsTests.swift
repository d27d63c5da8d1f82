import COpenSSL
import XCTest
@testable import DeviceAuth

/// The one OpenSSL error drain (COpenSSL's `cg_openssl_errors`, used by TLS
/// and DeviceAuth): every queued error, in order, joined by "; ", and the
/// queue left empty.
final class OpenSSLErrorsTests: XCTestCase {
    private func failToParse() {
        let garbage: [UInt8] = [0x30, 0x03, 0x01, 0x02, 0x03]
        garbage.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            XCTAssertNil(d2i_X509(nil, &cursor, buffer.count))
        }
    }

    func testTheDrainJoinsEveryQueuedErrorAndEmptiesTheQueue() {
        _ = OpenSSLErrors.drain()
        failToParse()
        let one = OpenSSLErrors.drain()
        XCTAssertTrue(one.hasPrefix("error:"), one)
        XCTAssertEqual(ERR_peek_error(), 0, "the queue is empty after a drain")

        failToParse()
        failToParse()
        let two = OpenSSLErrors.drain()
        XCTAssertEqual(two, one + "; " + one, "both failures, in order")
        XCTAssertEqual(OpenSSLErrors.drain(), "no OpenSSL error recorded")
    }

    func testAFailureNamesOpenSSLsReasonAndLeavesNothingForTheNext() {
        XCTAssertThrowsError(try X509Certificate(der: [1, 2, 3])) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("not a DER certificate (error:"), message)
        }
        XCTAssertEqual(ERR_peek_error(), 0)
    }
}
