import Commands
import Foundation
import GatewayModel
import JSON
import TestSupport
import WebInterface
import XCTest

/// The Software section: the release, how an A/B update goes, and a form
/// that asks for one through the same typed `update` command as the console
/// and MQTT (the URL and SHA-256 checked by `UpdateRequest`).
final class WebUpdateTests: XCTestCase {
    private let hash = try! PasswordHash(hashing: "right password", iterations: 1000)
    private let sha = String(repeating: "ab", count: 32)

    private func handler(updates: Bool, submitted: Recorder) -> WebRequestHandler {
        WebRequestHandler(password: hash, presets: [], idleTimeout: .seconds(1800), timeSource: ManualTimeSource(),
                          software: { WebSoftware(version: "1.4.0+git3.ab12cd3", updates: updates) }) {
            submitted.record("\($0)")
            return true
        }
    }

    private func post(_ handler: WebRequestHandler, _ cookie: String, _ body: String) -> WebResponse {
        handler.respond(to: WebRequest(method: "POST", target: "/update", cookie: cookie, contentType: "application/x-www-form-urlencoded",
                                       requestedWith: "fetch", body: Array(body.utf8)))
    }

    func testAnABBoxShowsItsReleaseAndTakesABundleFromAURLOrTheAnnouncedOne() throws {
        let submitted = Recorder()
        let handler = handler(updates: true, submitted: submitted)
        let (cookie, csrf) = try logIn(handler)
        let page = handler.respond(to: WebRequest(method: "GET", target: "/", cookie: cookie)).text
        XCTAssertTrue(page.contains(#"<dt>Version</dt><dd id="version">1.4.0+git3.ab12cd3</dd>"#), page)
        XCTAssertTrue(page.contains(#"<form method="post" action="/update" id="update-form">"#), page)
        XCTAssertTrue(page.contains(#"<label for="update-url">"#) && page.contains(#"<label for="update-sha256">"#), "every field labelled")

        let url = "https://updates.example/cast-gateway-rpi4.raucb"
        let fromURL = post(handler, cookie, "csrf=\(csrf)&url=\(url.formEncoded)&sha256=\(sha.uppercased())")
        XCTAssertEqual(fromURL.status, 202, fromURL.text)
        let latest = post(handler, cookie, "csrf=\(csrf)&latest=1")
        XCTAssertEqual(latest.status, 202, latest.text)
        let expected: [GatewayCommand] = [.update(.install(try UpdateRequest(url: url, sha256: sha))), .update(.latest)]
        XCTAssertEqual(submitted.all, expected.map { "\($0)" })
    }

    func testBadInputAndAMissingTokenAreRefusedAndNothingIsAskedFor() throws {
        let submitted = Recorder()
        let handler = handler(updates: true, submitted: submitted)
        let (cookie, csrf) = try logIn(handler)
        XCTAssertEqual(post(handler, cookie, "url=\("https://updates.example/b.raucb".formEncoded)").status, 403, "no CSRF token")
        let file = post(handler, cookie, "csrf=\(csrf)&url=\("file:///etc/shadow".formEncoded)")
        XCTAssertEqual(file.status, 400)
        XCTAssertEqual(file.text, "not requested: the URL must start with http:// or https:// (not 'file:///etc/shadow')\n")
        let shortSum = post(handler, cookie, "csrf=\(csrf)&url=\("https://updates.example/b.raucb".formEncoded)&sha256=abc")
        XCTAssertEqual(shortSum.status, 400)
        XCTAssertTrue(shortSum.text.hasPrefix("not requested: the SHA-256 must be 64 hex digits"), shortSum.text)
        XCTAssertEqual(post(handler, cookie, "csrf=\(csrf)&url=").status, 400, "no URL")
        XCTAssertEqual(submitted.all, [])
    }

    func testABoxWithoutABUpdatesSaysHowItIsUpdatedAndRefusesTheForm() throws {
        let submitted = Recorder()
        let handler = handler(updates: false, submitted: submitted)
        let (cookie, csrf) = try logIn(handler)
        let page = handler.respond(to: WebRequest(method: "GET", target: "/", cookie: cookie)).text
        XCTAssertFalse(page.contains(#"id="update-form""#), page)
        XCTAssertTrue(page.contains("This box is not an A/B image: it is updated with its package"), page)
        let refused = post(handler, cookie, "csrf=\(csrf)&latest=1")
        XCTAssertEqual(refused.status, 409)
        XCTAssertTrue(refused.text.contains("update it with its package (deploy/install)"), refused.text)
        XCTAssertEqual(submitted.all, [])
    }

    /// `/api/state`'s `software`, exactly: progress over the last report, the announced version.
    func testTheStateCarriesTheProgressTheLastReportAndTheOffer() throws {
        let handler = handler(updates: true, submitted: Recorder())
        let (cookie, _) = try logIn(handler)
        var state = GatewayState()
        handler.update(state)
        func software() throws -> String? {
            try JSONValue(parsing: handler.respond(to: WebRequest(method: "GET", target: "/api/state", cookie: cookie)).text)["software"]?.serialized
        }
        XCTAssertEqual(try software(),
                       #"{"version":"1.4.0+git3.ab12cd3","updates":true,"progress":null,"active":false,"report":null,"offer":null}"#)
        state.updateProgress = UpdateProgress(phase: .downloading, percent: 40, version: "1.5")
        state.update = UpdateReport(outcome: .updated, version: "1.4.0+git3.ab12cd3", running: "1.4.0+git3.ab12cd3", previous: "1.3.2")
        state.updateOffer = try UpdateRequest(url: "https://updates.example/b.raucb?token=secret", sha256: sha, version: "1.5")
        handler.update(state)
        XCTAssertEqual(try software(),
                       #"{"version":"1.4.0+git3.ab12cd3","updates":true,"progress":"downloading 1.5: 40%","active":true,"#
                       + #""report":"updated to 1.4.0+git3.ab12cd3 (was 1.3.2)","offer":"1.5"}"#)
        state.updateOffer = try UpdateRequest(url: "https://updates.example/b.raucb?token=secret")
        handler.update(state)
        XCTAssertEqual(try JSONValue(parsing: try XCTUnwrap(software()))["offer"], .string("https://updates.example/b.raucb<...>"),
                       "an offer without a version is named by its URL, without the query that may hold a token")
    }
}

private extension String {
    var formEncoded: String { addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? self }
}
