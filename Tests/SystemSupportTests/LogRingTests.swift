import SystemSupport
import XCTest

/// The in-memory ring of recent log lines: bounded by lines and by bytes, oldest dropped first.
final class LogRingTests: XCTestCase {
    func testItKeepsTheNewestLinesInOrderUpToTheLineBound() {
        let ring = LogRing(maximumLines: 3, maximumBytes: 1000)
        XCTAssertEqual(ring.lines, [])
        for number in 1...7 { ring.append("line \(number)") }
        XCTAssertEqual(ring.lines, ["line 5", "line 6", "line 7"])
        ring.append("line 8")
        XCTAssertEqual(ring.lines, ["line 6", "line 7", "line 8"])
    }

    func testItDropsTheOldestLinesOverTheByteBound() {
        let ring = LogRing(maximumLines: 100, maximumBytes: 25)
        for number in 1...4 { ring.append("0123456789-\(number)") }  // 12 bytes each
        XCTAssertEqual(ring.lines, ["0123456789-3", "0123456789-4"])
        // Then full by lines and by bytes at once.
        let both = LogRing(maximumLines: 2, maximumBytes: 12)
        for number in 1...5 { both.append("abcde\(number)") }
        XCTAssertEqual(both.lines, ["abcde4", "abcde5"])
        both.append("a much longer line than the bound")
        XCTAssertEqual(both.lines, ["a much longer line than the bound"], "the newest line stays even alone over the bound")
    }

    func testTheLoggerWritesIntoTheSharedRing() {
        let marker = "ring-marker-\(UInt64.random(in: 0..<UInt64.max))"
        Logger.setSink { _, _ in }
        defer { Logger.setSink(nil) }
        Logger(label: "test").warning("\(marker) <b>\u{1B}[31m")
        let line = LogRing.shared.lines.last { $0.contains(marker) }
        XCTAssertNotNil(line)
        XCTAssertTrue(line?.contains("warning test: \(marker) <b>\\x1b[31m") ?? false, line ?? "")
        Logger(label: "test").trace("\(marker)-trace")
        XCTAssertFalse(LogRing.shared.lines.contains { $0.contains("\(marker)-trace") }, "a message below the level is not kept")
    }
}
