import WebInterface
import XCTest

final class PasswordHashTests: XCTestCase {
    func testTheRightPasswordMatchesAndOthersDoNot() throws {
        let hash = try PasswordHash(hashing: "correct horse", iterations: 1000)
        XCTAssertTrue(hash.matches("correct horse"))
        XCTAssertFalse(hash.matches("correct hors"))
        XCTAssertFalse(hash.matches("correct horse "))
        XCTAssertFalse(hash.matches(""))
    }

    func testTheEncodedLineRoundTripsAndHoldsNoPassword() throws {
        let hash = try PasswordHash(hashing: "s3cret-pass", iterations: 1000)
        let line = hash.encoded
        XCTAssertTrue(line.hasPrefix("pbkdf2-sha256$1000$"), line)
        XCTAssertFalse(line.contains("s3cret"))
        let parsed = try PasswordHash(parsing: line + "\n", origin: "/etc/pw")
        XCTAssertEqual(parsed, hash)
        XCTAssertTrue(parsed.matches("s3cret-pass"))
    }

    func testEachHashHasItsOwnSalt() throws {
        let first = try PasswordHash(hashing: "same password", iterations: 1000)
        let second = try PasswordHash(hashing: "same password", iterations: 1000)
        XCTAssertNotEqual(first.salt, second.salt)
        XCTAssertNotEqual(first.hash, second.hash)
    }

    func testTheDefaultIsSlow() throws {
        XCTAssertGreaterThanOrEqual(PasswordHash.defaultIterations, 100_000)
    }

    func testAFileThatIsNoHashIsRefusedWithWhatToDo() {
        for text in ["", "hunter2", "pbkdf2-sha256$0$00$00", "pbkdf2-sha256$1000$zz$" + String(repeating: "0", count: 64),
                     "md5$1000$0011223344556677$" + String(repeating: "0", count: 64),
                     "pbkdf2-sha256$1000$0011223344556677$00"] {
            XCTAssertThrowsError(try PasswordHash(parsing: text, origin: "/etc/cast-gateway/web-password")) { error in
                let error = error as? WebError
                XCTAssertEqual(error?.code, .passwordFile)
                XCTAssertTrue(error?.message.contains("cast-gateway web-password /etc/cast-gateway/web-password") ?? false)
                if !text.isEmpty { XCTAssertFalse(error?.message.contains(text) ?? true, "the file's content was repeated") }
            }
        }
    }

    func testConstantTimeComparison() {
        XCTAssertTrue(ConstantTime.equal("abc", "abc"))
        XCTAssertFalse(ConstantTime.equal("abc", "abd"))
        XCTAssertFalse(ConstantTime.equal("ab", "abc"))
        XCTAssertFalse(ConstantTime.equal("abcd", "abc"))
        XCTAssertFalse(ConstantTime.equal("", "a"))
        XCTAssertTrue(ConstantTime.equal("", ""))
    }

    func testTokensAreLongAndDifferent() throws {
        let first = try XCTUnwrap(SecureRandom.token()), second = try XCTUnwrap(SecureRandom.token())
        XCTAssertEqual(first.count, 64)
        XCTAssertNotEqual(first, second)
    }
}
