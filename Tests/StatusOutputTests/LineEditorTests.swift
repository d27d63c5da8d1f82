import XCTest
@testable import StatusOutput

final class LineEditorTests: XCTestCase {
    private func feed(_ editor: inout LineEditor, _ text: String) -> (echo: String, events: [LineEditor.Event]) {
        editor.feed(Array(text.utf8))
    }

    func testEchoesAndSubmitsOnEnterWithCRLFAsOne() {
        var editor = LineEditor()
        let result = feed(&editor, "play\r\npause\n")
        XCTAssertEqual(result.events, [.line("play"), .line("pause")])
        XCTAssertEqual(result.echo, "play\r\npause\r\n")
    }

    func testBackspaceRemovesWholeCharactersAndCtrlUClears() {
        var editor = LineEditor()
        _ = feed(&editor, "vol 4é\u{7F}\u{7F}5")
        XCTAssertEqual(editor.display, "vol 5")
        let cleared = feed(&editor, "\u{15}")
        XCTAssertEqual(editor.display, "")
        XCTAssertTrue(cleared.echo.hasSuffix(LineEditor.prompt))
        XCTAssertEqual(feed(&editor, "\u{7F}\u{7F}ok\r").events, [.line("ok")], "backspace on an empty line is harmless")
    }

    func testCtrlCAbandonsTheLine() {
        var editor = LineEditor()
        let result = feed(&editor, "stop\u{03}status\r")
        XCTAssertEqual(result.events, [.interrupted, .line("status")])
        XCTAssertTrue(result.echo.contains("^C"))
    }

    func testEscapeSequencesAndControlBytesAreIgnored() {
        var editor = LineEditor()
        let result = feed(&editor, "\u{1B}[A\u{1B}[1;5Cpl\u{01}\u{00}ay\u{1B}OP\r")
        XCTAssertEqual(result.events, [.line("play")])
    }

    func testOverlongLinesAreDiscardedWhole() {
        var editor = LineEditor(maximumLength: 16)
        let result = feed(&editor, String(repeating: "x", count: 40) + "\rplay\r")
        XCTAssertEqual(result.events, [.tooLong, .line("play")])
    }

    func testCredentialsAreMaskedAsTyped() {
        var editor = LineEditor()
        let result = feed(&editor, "creds hunter2\r")
        XCTAssertEqual(result.echo, "creds *******\r\n")
        XCTAssertEqual(result.events, [.line("creds hunter2")])
        _ = feed(&editor, "creds ab")
        XCTAssertEqual(editor.display, "creds **")
    }

    func testNoEchoInScriptMode() {
        var editor = LineEditor()
        editor.echo = false
        let result = feed(&editor, "status\r")
        XCTAssertEqual(result.echo, "")
        XCTAssertEqual(result.events, [.line("status")])
    }
}
