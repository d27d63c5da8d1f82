import Configuration
import SystemSupport
import TestSupport
import WebInterface
import XCTest

/// The config page through the request handler, on a real file: secrets never
/// reach the page, check-config's errors are shown escaped in place, and
/// Apply writes the file (secrets kept) and starts one reload.
final class WebConfigEditorTests: XCTestCase {
    private let password = "right password"
    private let hash = try! PasswordHash(hashing: "right password", iterations: 1000)
    private var directory = ""
    private var path: String { directory + "/gateway.conf" }
    private let original = "[device]\nhost = 192.0.2.7\n\n[mqtt]\nhost = broker.lan\npassword = hunter2\n"

    override func setUpWithError() throws {
        directory = "/tmp/web-config-\(getpid())-\(UInt64.random(in: 0..<UInt64.max))"
        try FileSystem.createDirectory(directory)
        try FileSystem.writeAtomically(path, bytes: Array(original.utf8), mode: 0o600)
    }

    override func tearDownWithError() throws {
        try? FileSystem.remove(path)
        XCTAssertEqual(rmdir(directory), 0, "no temporary file left beside the config")
    }

    /// A handler whose check is ConfigFile's parse plus one rule (a [device] host is required), recording reloads.
    private func makeHandler(reloads: Recorder, checked: Recorder) -> WebRequestHandler {
        let path = self.path
        let config = WebConfigFile(path: path, check: { text in
            checked.record(text)
            do {
                let file = try ConfigFile(path: path, text: text)
                guard file.entries.contains(where: { $0.section == "device" && $0.key == "host" }) else {
                    return "\(path): [device] host: missing"
                }
                return nil
            } catch {
                return "\(error)"
            }
        }, reload: { reloads.record("reload") })
        return WebRequestHandler(password: hash, presets: [], idleTimeout: .seconds(1800), timeSource: ManualTimeSource(),
                                 config: config) { _ in true }
    }

    private func encode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
            }
        }
        return output
    }

    private func post(_ handler: WebRequestHandler, cookie: String, _ fields: [(String, String)]) -> WebResponse {
        let body = fields.map { "\($0.0)=\(encode($0.1))" }.joined(separator: "&")
        return handler.respond(to: WebRequest(method: "POST", target: "/config", cookie: cookie,
                                              contentType: "application/x-www-form-urlencoded", body: Array(body.utf8)))
    }

    /// The textarea's content, unescaped for the few entities the page uses.
    private func textarea(_ page: String) throws -> String {
        let start = try XCTUnwrap(page.range(of: "aria-describedby=\"config-result\">\n")).upperBound
        let end = try XCTUnwrap(page.range(of: "</textarea>", range: start..<page.endIndex)).lowerBound
        return String(page[start..<end]).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    func testThePageNeedsALoginAndShowsNoSecret() throws {
        let handler = makeHandler(reloads: Recorder(), checked: Recorder())
        XCTAssertEqual(handler.respond(to: WebRequest(method: "GET", target: "/config")).header("Location"), "/login")
        let (cookie, _) = try logIn(handler)
        let page = handler.respond(to: WebRequest(method: "GET", target: "/config", cookie: cookie))
        XCTAssertEqual(page.status, 200)
        XCTAssertFalse(page.text.contains("hunter2"))
        XCTAssertEqual(try textarea(page.text), "[device]\nhost = 192.0.2.7\n\n[mqtt]\nhost = broker.lan\npassword = ********\n")
        XCTAssertTrue(page.text.contains(#"<label for="config-text">"#), "the textarea is labelled")
        XCTAssertFalse(page.text.contains("<script>"))
    }

    func testWithoutTheCSRFTokenNothingIsWritten() throws {
        let reloads = Recorder()
        let handler = makeHandler(reloads: reloads, checked: Recorder())
        let (cookie, _) = try logIn(handler)
        XCTAssertEqual(post(handler, cookie: cookie, [("action", "apply"), ("text", "[device]\nhost = 10.0.0.1\n")]).status, 403)
        XCTAssertEqual(post(handler, cookie: cookie, [("csrf", "0"), ("action", "apply"), ("text", "[device]\nhost = 10.0.0.1\n")]).status,
                       403)
        XCTAssertEqual(try FileSystem.readText(path), original)
        XCTAssertEqual(reloads.all, [])
    }

    func testAnErrorIsShownEscapedUnderTheTextAndNothingIsWritten() throws {
        let reloads = Recorder()
        let handler = makeHandler(reloads: reloads, checked: Recorder())
        let (cookie, csrf) = try logIn(handler)
        let edited = "[device]\nhost = 192.0.2.7\n<script>alert(1)</script>\n[mqtt]\npassword = ********\n"
        for action in ["check", "apply"] {
            let response = post(handler, cookie: cookie, [("csrf", csrf), ("action", action), ("text", edited)])
            XCTAssertEqual(response.status, 422)
            XCTAssertTrue(response.text.contains("role=\"alert\">Not applied: \(path):3: expected &#39;key = value&#39;, found "
                                                 + "&#39;&lt;script&gt;alert(1)&lt;/script&gt;&#39;"), response.text)
            XCTAssertFalse(response.text.contains("<script>alert"))
            XCTAssertFalse(response.text.contains("hunter2"), "the page gets the browser's text back, not the restored one")
            XCTAssertEqual(try textarea(response.text), edited, "the edit stays in the textarea")
        }
        XCTAssertEqual(try FileSystem.readText(path), original)
        XCTAssertEqual(reloads.all, [])
    }

    func testCheckWritesNothingAndApplyWritesTheFileWithItsSecretsAndReloadsOnce() throws {
        let reloads = Recorder(), checked = Recorder()
        let handler = makeHandler(reloads: reloads, checked: checked)
        let (cookie, csrf) = try logIn(handler)
        // A browser sends CRLF line ends.
        let edited = "[device]\r\nhost = 192.0.2.8\r\n\r\n[mqtt]\r\nhost = broker.lan\r\npassword = ********\r\n"
        let expected = "[device]\nhost = 192.0.2.8\n\n[mqtt]\nhost = broker.lan\npassword = hunter2\n"
        let check = post(handler, cookie: cookie, [("csrf", csrf), ("action", "check"), ("text", edited)])
        XCTAssertEqual(check.status, 200)
        XCTAssertTrue(check.text.contains("No problems found"))
        XCTAssertEqual(checked.all, [expected], "the check sees the secret restored")
        XCTAssertEqual(try FileSystem.readText(path), original)
        XCTAssertEqual(reloads.all, [])
        let apply = post(handler, cookie: cookie, [("csrf", csrf), ("action", "apply"), ("text", edited)])
        XCTAssertEqual(apply.status, 200)
        XCTAssertTrue(apply.text.contains("Applied"))
        XCTAssertFalse(apply.text.contains("hunter2"))
        XCTAssertEqual(try FileSystem.readText(path), expected)
        XCTAssertEqual(FileSystem.permissions(of: path), 0o600, "the file keeps its mode")
        XCTAssertEqual(reloads.all, ["reload"])
    }

    func testAMaskWithNoValueBehindItIsShownAtItsLine() throws {
        let reloads = Recorder()
        let handler = makeHandler(reloads: reloads, checked: Recorder())
        let (cookie, csrf) = try logIn(handler)
        let response = post(handler, cookie: cookie, [("csrf", csrf), ("action", "apply"), ("text", "[device]\nhost = a\ntoken = ********\n")])
        XCTAssertEqual(response.status, 422)
        XCTAssertTrue(response.text.contains("Not applied: \(path):3: ******** stands for a hidden value"), response.text)
        XCTAssertEqual(try FileSystem.readText(path), original)
        XCTAssertEqual(reloads.all, [])
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
