import Commands
import GatewayModel
import JSON
import TestSupport
import WebInterface
import XCTest

/// The kiosk's part of the status page: shown only with a kiosk, its
/// playlist escaped with the playing item marked, and its buttons as the
/// console's `playlist start|stop|next` and `checkout`.
final class WebKioskTests: XCTestCase {
    private let hash = try! PasswordHash(hashing: "right password", iterations: 1000)

    func testTheKioskSectionIsHiddenWithoutAKioskAndListsThePlaylistWithOne() throws {
        let submitted = Recorder()
        let handler = WebRequestHandler(password: hash, presets: [], idleTimeout: .seconds(1800), timeSource: ManualTimeSource()) {
            submitted.record("\($0)")
            return true
        }
        let (cookie, csrf) = try logIn(handler)
        let without = handler.respond(to: WebRequest(method: "GET", target: "/", cookie: cookie)).text
        XCTAssertTrue(without.contains(#"<section aria-labelledby="kiosk-heading" id="kiosk" hidden>"#), without)
        var state = GatewayState()
        handler.update(state)
        XCTAssertEqual(try JSONValue(parsing: handler.respond(to: WebRequest(method: "GET", target: "/api/state", cookie: cookie)).text)["kiosk"],
                       .null)

        state.kioskItems = KioskItems(names: ["Lobby <loop>", "Menu & prices"], playing: 1)
        handler.update(state)
        let with = handler.respond(to: WebRequest(method: "GET", target: "/", cookie: cookie)).text
        XCTAssertTrue(with.contains(#"<section aria-labelledby="kiosk-heading" id="kiosk">"#), with)
        XCTAssertTrue(with.contains("<li>Lobby &lt;loop&gt;</li>\n<li aria-current=\"true\" class=\"playing\">Menu &amp; prices</li>"), with)
        XCTAssertTrue(with.contains(#"<p id="kiosk-position">Playing item 2 of 2</p>"#))
        for label in ["Start playlist", "Stop playlist", "Next in playlist", "Checkout"] {
            XCTAssertTrue(with.contains(">\(label)</button>"), label)
        }
        let api = handler.respond(to: WebRequest(method: "GET", target: "/api/state", cookie: cookie)).text
        XCTAssertTrue(api.contains(#""kiosk":{"items":["Lobby <loop>","Menu & prices"],"playing":1}"#), api)

        for value in ["kiosk-start", "kiosk-stop", "kiosk-next", "kiosk-checkout"] {
            let response = handler.respond(to: WebRequest(method: "POST", target: "/control", cookie: cookie,
                                                          contentType: "application/x-www-form-urlencoded", requestedWith: "fetch",
                                                          body: Array("csrf=\(csrf)&control=\(value)".utf8)))
            XCTAssertEqual(response.status, 204, value)
        }
        let expected: [GatewayCommand] = [.playlist(.start), .playlist(.stop), .playlist(.next), .checkout]
        XCTAssertEqual(submitted.all, expected.map { "\($0)" })
    }
}
