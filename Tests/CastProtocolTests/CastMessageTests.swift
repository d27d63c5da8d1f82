import TestSupport
import XCTest
@testable import CastProtocol

/// Vectors produced by Google's Python protobuf encoder (protobuf 7.36, the
/// CastMessage schema), so the codec is checked against a third-party encoder.
enum ThirdPartyVectors {
    /// pychromecast's generated cast_channel_pb2, PING on the heartbeat namespace.
    static let ping = "0800120873656e6465722d301a0a72656365697665722d30222775726e3a782d636173743a636f6d2e676f6f676c652e636173742e74702e6865617274626561742800320f7b2274797065223a2250494e47227d"
    /// Binary payload on the device-auth namespace.
    static let binary = "0800120873656e6465722d301a0a72656365697665722d30222875726e3a782d636173743a636f6d2e676f6f676c652e636173742e74702e6465766963656175746828013a050a021000ff"
    /// With deprecated fields 8 and 9 and two unknown fields (15 fixed64, 16 string), non-ASCII text.
    static let withUnknownFields = "080012057765622d351a012a222075726e3a782d636173743a636f6d2e676f6f676c652e636173742e6d65646961280032477b2274797065223a224d454449415f535441545553222c22737461747573223a5b5d2c22726571756573744964223a302c227469746c65223a224772c3b6c39f6520e29c93227d400048ac027908070605040302018201056c61746572"
}

final class CastMessageTests: XCTestCase {
    func testDecodesThirdPartyPing() throws {
        let message = try CastMessage(serialized: hexBytes(ThirdPartyVectors.ping))
        XCTAssertEqual(message.protocolVersion, 0)
        XCTAssertEqual(message.sourceID, "sender-0")
        XCTAssertEqual(message.destinationID, "receiver-0")
        XCTAssertEqual(message.namespace, CastNamespace.heartbeat)
        XCTAssertEqual(message.payload, .string(#"{"type":"PING"}"#))
    }

    func testEncodesExactlyLikeTheThirdPartyEncoder() {
        let ping = CastMessage(sourceID: "sender-0", destinationID: "receiver-0", namespace: CastNamespace.heartbeat,
                               payload: .string(#"{"type":"PING"}"#))
        XCTAssertEqual(ping.serialized(), hexBytes(ThirdPartyVectors.ping))
        let binary = CastMessage(sourceID: "sender-0", destinationID: "receiver-0", namespace: CastNamespace.deviceAuth,
                                 payload: .binary([0x0A, 0x02, 0x10, 0x00, 0xFF]))
        XCTAssertEqual(binary.serialized(), hexBytes(ThirdPartyVectors.binary))
    }

    func testSkipsDeprecatedAndUnknownFields() throws {
        let message = try CastMessage(serialized: hexBytes(ThirdPartyVectors.withUnknownFields))
        XCTAssertEqual(message.sourceID, "web-5")
        XCTAssertEqual(message.destinationID, "*")
        let json = try message.jsonPayload()
        XCTAssertEqual(json["title"]?.stringValue, "Größe ✓")
        XCTAssertEqual(json["type"]?.stringValue, "MEDIA_STATUS")
    }

    func testAlwaysWritesProtocolVersionAndPayloadType() {
        let bytes = CastMessage(sourceID: "a", destinationID: "b", namespace: "c", payload: .string("")).serialized()
        XCTAssertEqual(Array(bytes.prefix(2)), [0x08, 0x00])      // field 1 = 0
        XCTAssertTrue(bytes.windowIndex(of: [0x28, 0x00]) != nil)  // field 5 = 0
    }

    func testRequiredFieldsAreEnforced() {
        var writer = ProtobufWriter()
        writer.writeVarintField(1, 0)
        writer.writeStringField(2, "s")
        writer.writeStringField(3, "d")
        // namespace (4) missing
        writer.writeVarintField(5, 0)
        XCTAssertThrowsError(try CastMessage(serialized: writer.bytes)) { error in
            XCTAssertEqual((error as? CastProtocolError)?.code, .missingRequiredField)
        }
    }

    func testRejectsTruncatedAndMalformedBodies() {
        let good = hexBytes(ThirdPartyVectors.ping)
        for length in 0..<good.count {
            // The only valid prefix ends right after payload_type: proto2 makes
            // payload_utf8 optional, so that is a message with an empty payload.
            if let decoded = try? CastMessage(serialized: Array(good.prefix(length))) {
                XCTAssertEqual(decoded.payload, .string(""), "a \(length)-byte prefix decoded to \(decoded)")
                XCTAssertEqual(good[length], 0x32, "accepted a \(length)-byte prefix that does not end at field 6")
            }
        }
        let cases: [(String, [UInt8], CastProtocolError.Code)] = [
            ("overlong varint", [0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01], .malformedVarint),
            ("group in an unknown field", [0xA3, 0x01], .unsupportedWireType),
            ("wire type 7", [0x0F], .unsupportedWireType),
            ("field 0", [0x00, 0x00], .invalidFieldValue),
            ("string field as varint", [0x10, 0x01], .invalidFieldValue),
            ("length past end", [0x12, 0x05, 0x61], .truncatedMessage),
        ]
        for (name, bytes, code) in cases {
            XCTAssertThrowsError(try CastMessage(serialized: bytes), name) { error in
                XCTAssertEqual((error as? CastProtocolError)?.code, code, name)
            }
        }
    }

    func testRejectsInvalidUTF8AndUnknownPayloadType() throws {
        var writer = ProtobufWriter()
        writer.writeVarintField(1, 0)
        writer.writeStringField(2, "s")
        writer.writeStringField(3, "d")
        writer.writeBytesField(4, [0xFF, 0xFE])
        writer.writeVarintField(5, 0)
        XCTAssertThrowsError(try CastMessage(serialized: writer.bytes)) { error in
            XCTAssertEqual((error as? CastProtocolError)?.code, .invalidUTF8)
        }
        var other = ProtobufWriter()
        other.writeVarintField(1, 0)
        other.writeStringField(2, "s")
        other.writeStringField(3, "d")
        other.writeStringField(4, "n")
        other.writeVarintField(5, 7)
        XCTAssertThrowsError(try CastMessage(serialized: other.bytes)) { error in
            XCTAssertEqual((error as? CastProtocolError)?.code, .invalidFieldValue)
        }
    }

    func testRoundTripsLargeVarintsAndPayloads() throws {
        let message = CastMessage(protocolVersion: 3, sourceID: String(repeating: "s", count: 300), destinationID: "d",
                                  namespace: "n", payload: .binary(Array(repeating: 7, count: 20000)))
        XCTAssertEqual(try CastMessage(serialized: message.serialized()), message)
    }

    func testDescriptionRedactsCredentials() {
        let message = CastMessage(sourceID: "s", destinationID: "d", namespace: CastNamespace.receiver,
                                  json: ReceiverRequest.launch(LaunchRequest(appID: "ABCD1234", credentials: LaunchCredentials(credentials: "hunter2"))).json(requestID: 1))
        XCTAssertFalse(message.description.contains("hunter2"))
        XCTAssertTrue(message.description.contains("LAUNCH"))
    }
}

extension Array where Element == UInt8 {
    func windowIndex(of needle: [UInt8]) -> Int? {
        guard needle.count <= count else { return nil }
        return (0...(count - needle.count)).first { Array(self[$0..<$0 + needle.count]) == needle }
    }
}
