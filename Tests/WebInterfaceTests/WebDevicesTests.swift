import Commands
import GatewayModel
import JSON
import TestSupport
import WebInterface
import XCTest

/// Picking the device from the discovery table: the table (escaped, the one
/// in use marked), "Search for devices" as the console's `devices`, and
/// "Use this device" as `use ID`, only for a device in the table now.
final class WebDevicesTests: XCTestCase {
    private let hash = try! PasswordHash(hashing: "right password", iterations: 1000)

    private func device(_ id: String, _ name: String, port: UInt16) -> CastDevice {
        CastDevice(serviceName: "Chromecast-\(id)", id: id, name: name, model: "Chromecast", capabilities: [.videoOut, .audioOut],
                   busy: false, runningApp: nil, host: "192.0.2.5", port: port, txt: [:])
    }

    func testTheTableOffersEachDeviceButTheOneInUse() throws {
        let submitted = Recorder()
        let handler = WebRequestHandler(password: hash, presets: [], idleTimeout: .seconds(1800), timeSource: ManualTimeSource()) {
            submitted.record("\($0)")
            return true
        }
        let login = handler.respond(to: WebRequest(method: "POST", target: "/login", contentType: "application/x-www-form-urlencoded",
                                                   body: Array("password=right+password".utf8)))
        let cookie = String(try XCTUnwrap(login.header("Set-Cookie")).split(separator: ";")[0])
        let empty = handler.respond(to: WebRequest(method: "GET", target: "/", cookie: cookie)).text
        let start = try XCTUnwrap(empty.range(of: #"name="csrf" value=""#)).upperBound
        let csrf = String(empty[start...].prefix { $0 != "\"" })
        XCTAssertTrue(empty.contains(#"<p id="devices-empty">No Cast devices found yet.</p>"#))
        XCTAssertTrue(empty.contains(#"<table id="devices" hidden>"#))
        XCTAssertTrue(empty.contains(#"<button type="submit" name="control" value="search-devices">Search for devices</button>"#))

        var state = GatewayState()
        state.devices = [device("aa11", "Bedroom <TV>", port: 8009), device("bb22", "Lounge", port: 8010)]
        state.deviceAddress = "192.0.2.5:8010"
        handler.update(state)
        let page = handler.respond(to: WebRequest(method: "GET", target: "/", cookie: cookie)).text
        XCTAssertTrue(page.contains("<tr><td>Bedroom &lt;TV&gt;</td><td>Chromecast</td><td>192.0.2.5:8009</td><td><button type=\"submit\" "
                                    + "name=\"control\" value=\"use-aa11\" aria-label=\"Use this device: Bedroom &lt;TV&gt;\">"
                                    + "Use this device</button></td></tr>"), page)
        XCTAssertTrue(page.contains("<tr><td>Lounge</td><td>Chromecast</td><td>192.0.2.5:8010</td><td>In use</td></tr>"), page)
        let api = handler.respond(to: WebRequest(method: "GET", target: "/api/state", cookie: cookie)).text
        XCTAssertTrue(api.contains(#""devices":[{"id":"aa11","name":"Bedroom <TV>","model":"Chromecast","address":"192.0.2.5:8009","current":false},"#
                                   + #"{"id":"bb22","name":"Lounge","model":"Chromecast","address":"192.0.2.5:8010","current":true}]"#), api)

        func post(_ value: String) -> Int {
            handler.respond(to: WebRequest(method: "POST", target: "/control", cookie: cookie, contentType: "application/x-www-form-urlencoded",
                                           requestedWith: "fetch", body: Array("csrf=\(csrf)&control=\(value)".utf8))).status
        }
        XCTAssertEqual(post("search-devices"), 204)
        XCTAssertEqual(post("use-aa11"), 204)
        XCTAssertEqual(post("use-cc33"), 400, "a device not in the table")
        XCTAssertEqual(post("use-aa11+extra"), 400)
        XCTAssertEqual(post("use-"), 400)
        XCTAssertEqual(submitted.all, ["\(GatewayCommand.devices(matching: nil))", "\(GatewayCommand.use("aa11"))"])
    }
}
