import XCTest
@testable import CastProtocol

final class FrameDecoderTests: XCTestCase {
    private func message(_ index: Int) -> CastMessage {
        CastMessage(sourceID: "sender-\(index)", destinationID: "receiver-0", namespace: CastNamespace.receiver,
                    json: ["type": "GET_STATUS", "requestId": .int(index)])
    }

    func testReassemblesFramesDeliveredOneByteAtATime() throws {
        let frames = try (1...3).flatMap { try message($0).framed() }
        var decoder = FrameDecoder()
        var decoded: [CastMessage] = []
        for byte in frames {
            decoder.append([byte])
            while let next = try decoder.nextMessage() { decoded.append(next) }
        }
        XCTAssertEqual(decoded, (1...3).map(message))
        XCTAssertEqual(decoder.bufferedByteCount, 0)
    }

    func testSplitsManyFramesInOneRead() throws {
        var decoder = FrameDecoder()
        decoder.append(try (1...50).flatMap { try message($0).framed() })
        var count = 0
        while try decoder.nextMessage() != nil { count += 1 }
        XCTAssertEqual(count, 50)
    }

    func testRejectsEmptyAndOversizedFrames() throws {
        var empty = FrameDecoder()
        empty.append([0, 0, 0, 0])
        XCTAssertThrowsError(try empty.nextFrameBody()) { XCTAssertEqual(($0 as? CastProtocolError)?.code, .emptyFrame) }

        var large = FrameDecoder()
        large.append([0, 1, 0, 1])  // 65537
        XCTAssertThrowsError(try large.nextFrameBody()) { XCTAssertEqual(($0 as? CastProtocolError)?.code, .frameTooLarge) }

        var limit = FrameDecoder()
        limit.append([0, 1, 0, 0] + [UInt8](repeating: 0, count: 65536))
        XCTAssertEqual(try limit.nextFrameBody()?.count, 65536)
    }

    /// Issue 9 §8: an HTTP server read as Cast declared a 1213486160-byte frame ("HTTP").
    func testTextInsteadOfAFirstFrameIsNotCast() throws {
        var http = FrameDecoder()
        http.append(Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
        XCTAssertThrowsError(try http.nextFrameBody()) { error in
            let error = error as? CastProtocolError
            XCTAssertEqual(error?.code, .notCast)
            XCTAssertEqual(error?.detail, "it answered with text ('HTTP/1.1 400 Bad Request'), not Cast frames")
        }
        // Control characters are never quoted back: binary garbage stays a frame error.
        var binary = FrameDecoder()
        binary.append([0x48, 0x54, 0x1B, 0x5B, 0x32, 0x4A])
        XCTAssertThrowsError(try binary.nextFrameBody()) { XCTAssertEqual(($0 as? CastProtocolError)?.code, .frameTooLarge) }
        // Once the peer has spoken Cast, a bad length is a broken frame, not a stranger.
        var cast = FrameDecoder()
        cast.append(try message(1).framed() + Array("HTTP/1.1 200 OK".utf8))
        XCTAssertEqual(try cast.nextMessage(), message(1))
        XCTAssertThrowsError(try cast.nextFrameBody()) { XCTAssertEqual(($0 as? CastProtocolError)?.code, .frameTooLarge) }
    }

    func testMalformedBodyIsConsumedSoFramingStaysInStep() throws {
        var decoder = FrameDecoder()
        decoder.append([0, 0, 0, 3, 0xFF, 0xFF, 0xFF])
        decoder.append(try message(9).framed())
        XCTAssertThrowsError(try decoder.nextMessage())
        XCTAssertEqual(try decoder.nextMessage(), message(9))
    }

    func testEncoderRefusesBodiesAboveTheLimit() {
        let huge = CastMessage(sourceID: "s", destinationID: "d", namespace: "n", payload: .binary(Array(repeating: 0, count: 70000)))
        XCTAssertThrowsError(try huge.framed()) { XCTAssertEqual(($0 as? CastProtocolError)?.code, .frameTooLarge) }
    }
}
