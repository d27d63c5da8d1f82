import CastProtocol
import Fleet
import GatewayModel
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
        // A download URL's token (query, user info) stays out of logs.
        XCTAssertEqual(FleetCommandPayload.redacted("update https://u:pw@h/b.raucb?sig=abc 00ff"), "update https://h/b.raucb<...> 00ff")
        XCTAssertEqual(FleetCommandPayload.redacted("update https://h/b.raucb"), "update https://h/b.raucb")
        XCTAssertEqual(String(decoding: FleetCommandPayload.reply(id: "a\"b", ok: false, lines: ["x", "y"]), as: UTF8.self),
                       #"{"id":"a\"b","ok":false,"lines":["x","y"]}"#)
    }

    /// The fleet's retained announcement on `<prefix>/all/update`.
    func testTheUpdateAnnouncement() throws {
        let sha = String(repeating: "0f", count: 32)
        let offer = try FleetUpdateOffer.parse(Array(#"{"version":"2.1","url":"https://u.example/b.raucb","sha256":"\#(sha)"}"#.utf8)).get()
        XCTAssertEqual(offer, try UpdateRequest(url: "https://u.example/b.raucb", sha256: sha, version: "2.1"))
        XCTAssertEqual(String(decoding: FleetUpdateOffer.payload(try XCTUnwrap(offer)), as: UTF8.self),
                       #"{"version":"2.1","url":"https://u.example/b.raucb","sha256":"\#(sha)"}"#)
        XCTAssertEqual(try FleetUpdateOffer.parse(Array(#"{"version":"2.1","url":"http://u/b.raucb","sha256":null}"#.utf8)).get(),
                       try UpdateRequest(url: "http://u/b.raucb", version: "2.1"))
        XCTAssertNil(try FleetUpdateOffer.parse([]).get(), "an empty retained message withdraws it")
        let refused: [(String, String)] = [
            ("2.1", #"expected {"version": "...", "url": "...", "sha256": "..."}"#),
            (#"{"url":"https://u/b"}"#, #"no "version" string"#),
            (#"{"version":"2.1"}"#, #"no "url" string"#),
            (#"{"version":"2.1","url":"file:///b"}"#, "the URL must start with http:// or https:// (not 'file:///b')"),
            (#"{"version":"2.1","url":"https://u/b","sha256":7}"#, #""sha256" must be a string of 64 hex digits"#),
            (#"{"version":"2 1","url":"https://u/b"}"#, "the version must be printable ASCII without spaces, at most 64 characters"),
        ]
        for (payload, reason) in refused {
            switch FleetUpdateOffer.parse(Array(payload.utf8)) {
            case .success(let offer): XCTFail("\(payload) accepted as \(String(describing: offer))")
            case .failure(let problem): XCTAssertEqual(problem.description, reason, payload)
            }
        }
    }
}
