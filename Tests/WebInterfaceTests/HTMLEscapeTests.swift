import WebInterface
import XCTest

final class HTMLEscapeTests: XCTestCase {
    func testMarkupCharactersBecomeEntities() {
        XCTAssertEqual(HTMLEscape.escape(#"<script>alert("x")</script> & 'y'"#),
                       "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;")
    }

    func testControlCharactersAreDroppedAndTextKept() {
        XCTAssertEqual(HTMLEscape.escape("a\u{0}b\u{1B}[31mc\td\ne\u{7F}"), "ab[31mc\td\ne")
        XCTAssertEqual(HTMLEscape.escape("Café ☕ 日本"), "Café ☕ 日本")
    }

    func testFormDataDecodes() {
        let fields = FormData.parse(Array("csrf=ab%2Fc&control=key-KEY_UP&x=a+b&bad=%zz%4&control=second".utf8))
        XCTAssertEqual(fields["csrf"], "ab/c")
        XCTAssertEqual(fields["control"], "key-KEY_UP")
        XCTAssertEqual(fields["x"], "a b")
        XCTAssertEqual(fields["bad"], "%zz%4")
    }
}
