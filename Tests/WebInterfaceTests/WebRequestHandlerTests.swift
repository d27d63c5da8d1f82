import Commands
import GatewayModel
import JSON
import Synchronization
import TestSupport
import WebInterface
import XCTest

/// The whole request logic without a socket: login, cookie, redirects, CSRF, lockout, controls.
final class WebRequestHandlerTests: XCTestCase {
    private let password = "right password"
    private let hash = try! PasswordHash(hashing: "right password", iterations: 1000)

    private func makeHandler(clock: ManualTimeSource, accept: Bool = true) -> (WebRequestHandler, Recorder) {
        let submitted = Recorder()
        let counter = Recorder()
        let handler = WebRequestHandler(password: hash, presets: [WebPreset(number: 3, title: "<b>News</b> & more")],
                                        idleTimeout: .seconds(1800), timeSource: clock,
                                        newToken: { "token\(counter.record("t"))" }) { command in
            submitted.record("\(command)")
            return accept
        }
        return (handler, submitted)
    }

    private func form(_ fields: [(String, String)]) -> [UInt8] {
        Array(fields.map { "\($0.0)=\($0.1.replacingOccurrences(of: " ", with: "+"))" }.joined(separator: "&").utf8)
    }

    private func post(_ handler: WebRequestHandler, _ path: String, cookie: String? = nil, _ fields: [(String, String)],
                      fetch: Bool = false) -> WebResponse {
        handler.respond(to: WebRequest(method: "POST", target: path, cookie: cookie, contentType: "application/x-www-form-urlencoded",
                                       requestedWith: fetch ? "fetch" : nil, body: form(fields)))
    }

    private func get(_ handler: WebRequestHandler, _ path: String, cookie: String? = nil) -> WebResponse {
        handler.respond(to: WebRequest(method: "GET", target: path, cookie: cookie))
    }

    /// Logs in and returns the cookie header value and the CSRF token.
    private func logIn(_ handler: WebRequestHandler) throws -> (cookie: String, csrf: String) {
        let response = post(handler, "/login", [("password", password)])
        XCTAssertEqual(response.status, 303)
        XCTAssertEqual(response.header("Location"), "/")
        let setCookie = try XCTUnwrap(response.header("Set-Cookie"))
        let cookie = String(setCookie.split(separator: ";")[0])
        let page = get(handler, "/", cookie: cookie)
        XCTAssertEqual(page.status, 200)
        let marker = #"name="csrf-token" content=""#
        let start = try XCTUnwrap(page.text.range(of: marker)).upperBound
        let csrf = String(page.text[start...].prefix { $0 != "\"" })
        return (cookie, csrf)
    }

    func testNothingButTheLoginPageIsShownBeforeLogin() {
        let (handler, _) = makeHandler(clock: ManualTimeSource())
        for path in ["/", "/status", "/anything?x=1"] {
            let response = get(handler, path)
            XCTAssertEqual(response.status, 303, path)
            XCTAssertEqual(response.header("Location"), "/login")
            XCTAssertTrue(response.body.isEmpty)
        }
        let api = get(handler, "/api/state")
        XCTAssertEqual(api.status, 401)
        XCTAssertFalse(api.text.contains("PLAYING"))
        XCTAssertEqual(get(handler, "/api/state", cookie: "cg_session=guessed").status, 401)
        XCTAssertEqual(post(handler, "/control", [("control", "pause")], fetch: true).status, 401)
        let login = get(handler, "/login")
        XCTAssertEqual(login.status, 200)
        XCTAssertTrue(login.text.contains(#"type="password""#))
        XCTAssertFalse(login.text.contains("<script"), "the login page has no script")
    }

    func testEveryAnswerCarriesTheSecurityHeaders() {
        let (handler, _) = makeHandler(clock: ManualTimeSource())
        for response in [get(handler, "/login"), get(handler, "/"), get(handler, "/api/state"), get(handler, "/app.js"),
                         post(handler, "/login", [("password", "x")])] {
            XCTAssertEqual(response.header("Content-Security-Policy"),
                           "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
            XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff")
        }
        XCTAssertEqual(handler.respond(to: WebRequest(method: "DELETE", target: "/")).status, 405)
    }

    func testAWrongPasswordSetsNoCookieAndTheRightOneAStrictHttpOnlyCookie() throws {
        let (handler, _) = makeHandler(clock: ManualTimeSource())
        let wrong = post(handler, "/login", [("password", "wrong")])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertTrue(wrong.text.contains("Wrong password."))
        XCTAssertTrue(wrong.text.contains(#"type="password""#))
        XCTAssertNil(wrong.header("Set-Cookie"))
        XCTAssertFalse(get(handler, "/login").text.contains("Wrong password."))
        XCTAssertNil(post(handler, "/login", []).header("Set-Cookie"))
        let right = post(handler, "/login", [("password", password)])
        let cookie = try XCTUnwrap(right.header("Set-Cookie"))
        XCTAssertTrue(cookie.hasPrefix("cg_session=token1;"), cookie)
        XCTAssertTrue(cookie.contains("HttpOnly"))
        XCTAssertTrue(cookie.contains("SameSite=Strict"))
        XCTAssertEqual(handler.sessionCount, 1)
    }

    func testTheSixthAttemptWithinAMinuteIsRefusedEvenWhenRight() async throws {
        let clock = ManualTimeSource()
        let (handler, _) = makeHandler(clock: clock)
        for _ in 0..<5 { XCTAssertEqual(post(handler, "/login", [("password", "guess")]).status, 401) }
        let refused = post(handler, "/login", [("password", password)])
        XCTAssertEqual(refused.status, 429)
        XCTAssertNil(refused.header("Set-Cookie"))
        XCTAssertEqual(refused.header("Retry-After"), "60")
        await clock.advance(by: .seconds(60), step: .seconds(10))
        XCTAssertNotNil(post(handler, "/login", [("password", password)]).header("Set-Cookie"), "a minute later the right one works")
    }

    func testControlsNeedTheSessionsCSRFToken() throws {
        let (handler, submitted) = makeHandler(clock: ManualTimeSource())
        let (cookie, csrf) = try logIn(handler)
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("control", "pause")]).status, 403)
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("csrf", "token1"), ("control", "pause")]).status, 403,
                       "the session token is not the CSRF token")
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("csrf", csrf + "0"), ("control", "pause")]).status, 403)
        // A GET changes nothing.
        XCTAssertEqual(get(handler, "/control?csrf=\(csrf)&control=pause", cookie: cookie).status, 404)
        XCTAssertEqual(submitted.all, [])
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("csrf", csrf), ("control", "pause")], fetch: true).status, 204)
        let plain = post(handler, "/control", cookie: cookie, [("csrf", csrf), ("control", "preset-3")])
        XCTAssertEqual(plain.status, 303)
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("csrf", csrf), ("control", "key-KEY_UP")]).status, 303)
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("csrf", csrf), ("control", "volume-up")]).status, 303)
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("csrf", csrf), ("control", "cast http://evil")]).status, 400)
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("csrf", csrf), ("control", "preset-7")]).status, 400)
        let expected: [GatewayCommand] = [.action(.pause), .action(.preset(3)), .key("KEY_UP"), try GatewayCommand(parsing: "vol +5")]
        XCTAssertEqual(submitted.all, expected.map { "\($0)" })
    }

    func testAFullQueueIsAnsweredBusy() throws {
        let (handler, _) = makeHandler(clock: ManualTimeSource(), accept: false)
        let (cookie, csrf) = try logIn(handler)
        XCTAssertEqual(post(handler, "/control", cookie: cookie, [("csrf", csrf), ("control", "play")]).status, 503)
    }

    func testLogoutEndsTheSession() throws {
        let (handler, _) = makeHandler(clock: ManualTimeSource())
        let (cookie, csrf) = try logIn(handler)
        XCTAssertEqual(post(handler, "/logout", cookie: cookie, []).status, 403)
        let out = post(handler, "/logout", cookie: cookie, [("csrf", csrf)])
        XCTAssertEqual(out.header("Location"), "/login")
        XCTAssertTrue(out.header("Set-Cookie")?.contains("Max-Age=0") ?? false)
        XCTAssertEqual(get(handler, "/api/state", cookie: cookie).status, 401)
    }

    func testASessionIdlesOut() async throws {
        let clock = ManualTimeSource()
        let (handler, _) = makeHandler(clock: clock)
        let (cookie, _) = try logIn(handler)
        await clock.advance(by: .seconds(1800), step: .seconds(60))
        XCTAssertEqual(get(handler, "/", cookie: cookie).header("Location"), "/login")
    }

    func testThePageEscapesWhatItRendersAndTheStateIsJSON() throws {
        let clock = ManualTimeSource()
        let (handler, _) = makeHandler(clock: clock)
        let (cookie, _) = try logIn(handler)
        let page = get(handler, "/", cookie: cookie).text
        XCTAssertTrue(page.contains("Preset 3: &lt;b&gt;News&lt;/b&gt; &amp; more"), page)
        XCTAssertFalse(page.contains("<b>News"))
        XCTAssertFalse(page.contains("<script>"), "no inline script")
        XCTAssertTrue(page.contains(#"<script src="/app.js" defer></script>"#))
        for label in ["Play", "Pause", "Stop", "Next", "Previous", "Volume up", "Volume down", "Up", "OK"] {
            XCTAssertTrue(page.contains(">\(label)</button>"), label)
        }
        var state = GatewayState()
        state.deviceName = "Living Room"
        state.link = .connected
        state.player = .playing
        state.title = #"<img src=x onerror="alert(1)">"#
        state.volume = 0.3
        state.position = 10
        state.lastError = GatewayState.Problem(code: "load-failed", message: "it broke")
        handler.update(state)
        let response = get(handler, "/api/state", cookie: cookie)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let json = try JSONValue(parsing: response.text)
        XCTAssertEqual(json["title"]?.stringValue, #"<img src=x onerror="alert(1)">"#)
        XCTAssertEqual(json["player"]?.stringValue, "PLAYING")
        XCTAssertEqual(json["link"]?.stringValue, "connected")
        XCTAssertEqual(json["volume"]?.intValue, 30)
        XCTAssertEqual(json["problems"]?.arrayValue, [.string("load-failed: it broke")])
        XCTAssertTrue(WebPagesScript.usesTextContentOnly(get(handler, "/app.js").text))
    }

    func testAnOversizedOrOddRequestIsRefusedCleanly() {
        let (handler, _) = makeHandler(clock: ManualTimeSource())
        var request = WebRequest(method: "POST", target: "/login", contentType: "application/x-www-form-urlencoded",
                                 body: Array("password=right+password".utf8))
        request.bodyTooLarge = true
        XCTAssertEqual(handler.respond(to: request).status, 413)
        XCTAssertEqual(handler.respond(to: request).header("X-Frame-Options"), "DENY")
        XCTAssertNil(handler.respond(to: request).header("Set-Cookie"))
        let json = WebRequest(method: "POST", target: "/login", contentType: "application/json", body: Array(#"{"password":"x"}"#.utf8))
        XCTAssertNil(handler.respond(to: json).header("Set-Cookie"))
        XCTAssertEqual(get(handler, "/%00%ff/../..").status, 303)
    }
}

/// Lines recorded from any thread.
final class Recorder: Sendable {
    private let lines = Mutex<[String]>([])

    /// Appends `line`; returns how many lines there are now.
    @discardableResult
    func record(_ line: String) -> Int { lines.withLock { $0.append(line); return $0.count } }

    var all: [String] { lines.withLock { $0 } }
}

/// What the page's script may do with the state.
enum WebPagesScript {
    static func usesTextContentOnly(_ script: String) -> Bool {
        !script.contains("innerHTML") && !script.contains("outerHTML") && !script.contains("document.write")
            && !script.contains("insertAdjacentHTML") && script.contains("textContent")
    }
}
