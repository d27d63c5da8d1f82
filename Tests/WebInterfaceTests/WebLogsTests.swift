import TestSupport
import WebInterface
import XCTest

/// The Logs page and its download: only after login, escaped, plain text as an attachment.
final class WebLogsTests: XCTestCase {
    private let hash = try! PasswordHash(hashing: "right password", iterations: 1000)

    func testTheRecentLogIsShownEscapedAndDownloadableAfterLoginOnly() throws {
        let lines = ["09:00:00.000Z notice main: started", #"09:00:01.000Z info cast: title <script>alert("x")</script> & more"#]
        let handler = WebRequestHandler(password: hash, presets: [], idleTimeout: .seconds(1800), timeSource: ManualTimeSource(),
                                        recentLog: { lines }) { _ in true }
        XCTAssertEqual(handler.respond(to: WebRequest(method: "GET", target: "/logs")).header("Location"), "/login")
        XCTAssertEqual(handler.respond(to: WebRequest(method: "GET", target: "/logs.txt")).header("Location"), "/login")
        let login = handler.respond(to: WebRequest(method: "POST", target: "/login", contentType: "application/x-www-form-urlencoded",
                                                   body: Array("password=right+password".utf8)))
        let cookie = String(try XCTUnwrap(login.header("Set-Cookie")).split(separator: ";")[0])

        let page = handler.respond(to: WebRequest(method: "GET", target: "/logs", cookie: cookie))
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.text.contains("09:00:00.000Z notice main: started\n09:00:01.000Z info cast: title "
                                         + "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more</pre>"), page.text)
        XCTAssertFalse(page.text.contains("<script>alert"))
        XCTAssertTrue(page.text.contains(#"<a href="/logs.txt" download="cast-gateway-log.txt" id="download-logs">Download logs</a>"#))

        let download = handler.respond(to: WebRequest(method: "GET", target: "/logs.txt", cookie: cookie))
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.header("Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(download.header("Content-Disposition"), #"attachment; filename="cast-gateway-log.txt""#)
        XCTAssertEqual(download.header("X-Content-Type-Options"), "nosniff")
        XCTAssertEqual(download.text, lines.joined(separator: "\n") + "\n")
    }
}
