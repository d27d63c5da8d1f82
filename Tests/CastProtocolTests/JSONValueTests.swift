import JSON
import XCTest
@testable import CastProtocol

final class JSONValueTests: XCTestCase {
    func testParsesAllKindsAndKeepsMemberOrder() throws {
        let value = try JSONValue(parsing: #" { "b": [1, -2.5, 3e2, true, false, null], "a": {"x": "y"} } "#)
        XCTAssertEqual(value["b"], [1, -2.5, 300, true, false, nil])
        XCTAssertEqual(value["a"]?["x"]?.stringValue, "y")
        XCTAssertEqual(value.objectValue?.keys, ["b", "a"])
        XCTAssertEqual(value.serialized, #"{"b":[1,-2.5,300,true,false,null],"a":{"x":"y"}}"#)
    }

    func testStringEscapesRoundTrip() throws {
        let text = #""quote\" backslash\\ slash\/ \b\f\n\r\t \u00e9 \ud83d\ude00 \u0001""#
        let value = try JSONValue(parsing: text)
        XCTAssertEqual(value.stringValue, "quote\" backslash\\ slash/ \u{08}\u{0C}\n\r\t é 😀 \u{01}")
        XCTAssertEqual(try JSONValue(parsing: value.serialized), value)
        XCTAssertEqual(JSONValue.string("a\"b\n\u{1F}").serialized, #""a\"b\n\u001f""#)
    }

    func testNonASCIIPassesThroughAsUTF8() throws {
        let value = try JSONValue(parsing: "{\"title\":\"Größe ✓ 映画\"}")
        XCTAssertEqual(value["title"]?.stringValue, "Größe ✓ 映画")
        XCTAssertEqual(value.serialized, "{\"title\":\"Größe ✓ 映画\"}")
    }

    func testNumbersSerializeWithoutNeedlessFractions() {
        XCTAssertEqual(JSONValue.number(42).serialized, "42")
        XCTAssertEqual(JSONValue.number(-0.5).serialized, "-0.5")
        XCTAssertEqual(JSONValue.number(1e21).serialized, "1e+21")
        XCTAssertEqual(JSONValue.number(.nan).serialized, "null")
        XCTAssertEqual(JSONValue.number(7).intValue, 7)
        XCTAssertNil(JSONValue.number(7.5).intValue)
    }

    func testRejectsMalformedInput() {
        let bad = [
            "", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "tru", "nul", "01", "1.", "-", ".5", "1e", "+1",
            "\"unterminated", "\"bad \\x escape\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "[1] 2",
            "\"tab\tinside\"", "{1:2}", "NaN", "1e999",
        ]
        for text in bad {
            XCTAssertThrowsError(try JSONValue(parsing: text), "accepted \(text.debugDescription)")
        }
    }

    func testRejectsInvalidUTF8InStrings() {
        let bytes: [UInt8] = [0x22, 0x61, 0xC3, 0x28, 0x22]  // "a\xC3(" : broken two-byte sequence
        XCTAssertThrowsError(try JSONValue(parsing: bytes)) { error in
            XCTAssertEqual((error as? JSONParseError)?.reason, "invalid UTF-8 in string")
        }
    }

    func testLimitsNestingDepth() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertThrowsError(try JSONValue(parsing: deep))
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try JSONValue(parsing: fine))
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        XCTAssertThrowsError(try JSONValue(parsing: hostile))
    }

    func testObjectEqualityIgnoresOrderAndSetterReplacesInPlace() {
        var object: JSONObject = ["a": 1, "b": 2]
        XCTAssertEqual(JSONValue.object(object), ["b": 2, "a": 1])
        object["a"] = 3
        object["c"] = 4
        object["b"] = nil
        XCTAssertEqual(object.keys, ["a", "c"])
        XCTAssertEqual(JSONValue.object(object).serialized, #"{"a":3,"c":4}"#)
    }

    func testRedactionHidesCredentialsAtAnyDepth() {
        let value: JSONValue = [
            "type": "LAUNCH", "credentialsData": ["credentials": "s3cret", "credentialsType": "android"],
            "media": ["items": [["credentials": "tok", "atvCredentials": "atv"]]],
        ]
        let text = value.redacted.serialized
        XCTAssertFalse(text.contains("s3cret"))
        XCTAssertFalse(text.contains("tok\""))
        XCTAssertFalse(text.contains("atv\""))
        XCTAssertTrue(text.contains("<redacted>"))
        XCTAssertTrue(text.contains("LAUNCH"))
    }

    /// A receiver can send a frame holding thousands of members (issue 8 §5).
    /// Parsing them is linear (see `bench/run.sh json`); the result must stay
    /// what it was: members in first-seen order, a duplicate key keeps its
    /// first position and takes its last value.
    func testLargeObjectKeepsOrderAndResolvesDuplicatesLikeAssignment() throws {
        let count = 20_000
        var members = (0..<count).map { "\"k\($0)\":\($0)" }
        // Every 1,000th key again, twice, with new values: the last one wins.
        for key in stride(from: 0, to: count, by: 1_000) {
            members.append("\"k\(key)\":\"first repeat\"")
            members.append("\"k\(key)\":\"last repeat\"")
        }
        let value = try JSONValue(parsing: "{" + members.joined(separator: ",") + "}")
        let object = try XCTUnwrap(value.objectValue)
        XCTAssertEqual(object.members.count, count)
        XCTAssertEqual(object.keys, (0..<count).map { "k\($0)" })
        XCTAssertEqual(object["k0"], "last repeat")
        XCTAssertEqual(object["k19000"], "last repeat")
        XCTAssertEqual(object["k1"], 1)
        XCTAssertEqual(object["k19999"], 19_999)

        // Building from a member list resolves duplicates the same way.
        let built = JSONObject([(key: "a", value: 1), (key: "b", value: 2), (key: "a", value: 3)])
        XCTAssertEqual(built.keys, ["a", "b"])
        XCTAssertEqual(built["a"], 3)

        // Equality ignores order, also for large objects.
        let reversed = JSONObject(object.members.reversed())
        XCTAssertEqual(reversed, object)
        var changed = reversed
        changed["k12345"] = "other"
        XCTAssertNotEqual(changed, object)
        XCTAssertNotEqual(JSONObject(Array(object.members.dropLast())), object)
    }
}
