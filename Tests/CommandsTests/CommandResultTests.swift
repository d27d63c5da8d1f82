import Commands
import SystemSupport
import XCTest

/// How a typed result reads as text (the console's lines, MQTT's `lines`).
final class CommandResultTests: XCTestCase {
    func testSuccessFailureAndPartialFailureAsTextLines() {
        let done: CommandResult = .success(CommandReply())
        XCTAssertEqual(done.textLines, ["ok"])
        XCTAssertTrue(done.succeeded && done.succeededEntirely)

        let usage: CommandResult = .failure(CommandError(UsageError("usage: vol 0-100 | +N | -N")))
        XCTAssertEqual(usage.textLines, ["error: usage: vol 0-100 | +N | -N"])
        XCTAssertEqual((try? usage.get()) == nil, true)
        XCTAssertFalse(usage.succeeded || usage.succeededEntirely)
        if case .failure(let error) = usage { XCTAssertEqual(error.code, .usage) }

        // A checkout that could not set the volume: it worked, but not entirely.
        let partial: CommandResult = .success(CommandReply(["ok: checkout: loop restarted from item 1"],
                                                           problems: ["could not set the volume to 25%: timeout"]))
        XCTAssertEqual(partial.textLines, ["ok: checkout: loop restarted from item 1", "error: could not set the volume to 25%: timeout"])
        XCTAssertTrue(partial.succeeded)
        XCTAssertFalse(partial.succeededEntirely)
    }
}
