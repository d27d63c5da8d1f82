import CastProtocol
import Fleet
import JSON
import XCTest

final class FleetCommandPayloadTests: XCTestCase {
    private func parse(_ text: String) -> Result<FleetCommandRequest, FleetPayloadError> {
        FleetCommandPayload.parse(Array(text.utf8))
    }

    func testPlainTextAndJSON() {
        XCTAssertEqual(try parse("pause").get(), FleetCommandRequest(line: "pause"))
        XCTAssertEqual(try parse("  vol 30\r\n").get(), FleetCommandRequest(line: "vol 30"))
        XCTAssertEqual(try parse(#"{"id":"abc","command":"preset 3"}"#).get(), FleetCommandRequest(id: "abc", line: "preset 3"))
        XCTAssertEqual(try parse(#" {"command":" checkout ","id":12,"extra":true}"#).get(), FleetCommandRequest(id: 12, line: "checkout"))
    }

    func testRejections() {
        let cases: [(String, JSONValue, String)] = [
            ("", .null, "empty command"),
            ("   \n", .null, "empty command"),
            ("pause\nstop", .null, "one command per message"),
            ("pause\u{1B}[2J", .null, "control characters"),
            (#"{"id":"x","command":"#, .null, "invalid JSON"),
            (#"{"id":"q"}"#, "q", "no \"command\""),
            (#"{"id":"q","command":5}"#, "q", "must be a string"),
            (#"{"id":"q","command":"  "}"#, "q", "empty command"),
            (#"{"id":{"a":1},"command":"play"}"#, .null, "\"id\" must be"),
            (#"{"id":"q","command":"play\nstop"}"#, "q", "one command per message"),
        ]
        for (text, id, fragment) in cases {
            guard case .failure(let error) = parse(text) else {
                XCTFail("accepted \(text.debugDescription)")
                continue
            }
            XCTAssertEqual(error.id, id, text)
            XCTAssertTrue(error.message.contains(fragment), "\(text.debugDescription): \(error.message)")
        }
        guard case .failure(let binary) = FleetCommandPayload.parse([0xC3, 0x28, 0xFF]) else { return XCTFail() }
        XCTAssertTrue(binary.message.contains("not valid UTF-8"))
        guard case .failure(let large) = FleetCommandPayload.parse([UInt8](repeating: 0x20, count: 5000)) else { return XCTFail() }
        XCTAssertTrue(large.message.contains("5000 bytes"))
    }

    func testRedactionAndReplies() {
        XCTAssertTrue(FleetCommandPayload.isCredentialCommand("CREDS abc"))
        XCTAssertTrue(FleetCommandPayload.isCredentialCommand("credentials abc def"))
        XCTAssertFalse(FleetCommandPayload.isCredentialCommand("cast http://x/creds"))
        XCTAssertEqual(FleetCommandPayload.redacted("creds abc def"), "creds <redacted>")
        XCTAssertEqual(FleetCommandPayload.redacted("vol 30"), "vol 30")
        XCTAssertEqual(String(decoding: FleetCommandPayload.reply(id: "a\"b", ok: false, lines: ["x", "y"]), as: UTF8.self),
                       #"{"id":"a\"b","ok":false,"lines":["x","y"]}"#)
    }
}
