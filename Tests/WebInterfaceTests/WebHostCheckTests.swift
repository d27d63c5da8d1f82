import Configuration
import TestSupport
import WebInterface
import XCTest

/// The DNS-rebinding defence: which Host and Origin headers name the box.
final class WebHostCheckTests: XCTestCase {
    /// 192.168.1.5 and fe80::1 and 2001:db8::5 are "this box's interfaces" when bound to every address.
    private let interfaces: @Sendable () -> [[UInt8]] = {
        [[192, 168, 1, 5], [0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
         [0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5]]
    }

    func testTheBoxsNamesWithPortsCaseAndTrailingDot() {
        let check = WebHostCheck(listenHost: "0.0.0.0", hostName: "Room-214", extra: ["tv.hotel.lan", "203.0.113.7"],
                                 localAddresses: interfaces)
        for host in ["room-214", "ROOM-214:8080", "room-214.local", "room-214.local.:8080", "Room-214.Local.", "localhost",
                     "localhost:8080", "LOCALHOST.", "192.168.1.5", "192.168.1.5:8080", "[2001:db8::5]", "[2001:DB8:0::5]:8080",
                     "[fe80::1%25eth0]:8080", "tv.hotel.lan", "TV.hotel.lan.:80", "203.0.113.7:8080", " room-214 "] {
            XCTAssertTrue(check.accepts(host: host), host)
        }
    }

    func testForeignNamesAndMalformedHeadersAreRefused() {
        let check = WebHostCheck(listenHost: "0.0.0.0", hostName: "room-214", extra: ["tv.hotel.lan"], localAddresses: interfaces)
        for host: String? in [nil, "", "evil.example", "evil.example:8080", "room-214.evil.example", "room-2140", "room-214..",
                              "192.168.1.6", "192.168.1.5.evil.example", "[2001:db8::6]:8080", "2001:db8::5", "[192.168.1.5]",
                              "[2001:db8::5", "[2001:db8::5]x", "room-214:", "room-214:port", "room-214:123456", ":8080",
                              "localhost.evil.example", "lan", "hotel.lan", "room-214 evil"] {
            XCTAssertFalse(check.accepts(host: host), host ?? "nil")
        }
    }

    func testBoundToOneAddressOnlyThatLiteral() {
        let check = WebHostCheck(listenHost: "192.168.1.5", hostName: nil, localAddresses: {
            XCTFail("the interfaces are asked only when bound to every address")
            return []
        })
        XCTAssertTrue(check.accepts(host: "192.168.1.5:8080"))
        XCTAssertTrue(check.accepts(host: "localhost:8080"))
        XCTAssertFalse(check.accepts(host: "127.0.0.1:8080"), "bound to 192.168.1.5: another local address is not it")
        XCTAssertFalse(check.accepts(host: "room-214"), "no host name known")
        let v6 = WebHostCheck(listenHost: "::1", hostName: "box")
        XCTAssertTrue(v6.accepts(host: "[::1]:8080"))
        XCTAssertTrue(v6.accepts(host: "[0:0:0:0:0:0:0:1]"))
        XCTAssertFalse(v6.accepts(host: "127.0.0.1"))
        XCTAssertTrue(v6.accepts(host: "box.local"))
    }

    func testTheInterfacesAreReadWhenAsked() {
        // The real getifaddrs: loopback is always there.
        let check = WebHostCheck(listenHost: "::", hostName: nil)
        XCTAssertTrue(check.accepts(host: "127.0.0.1:8080"))
        XCTAssertFalse(check.accepts(host: "192.0.2.77"), "TEST-NET-1 is on no interface here")
    }

    func testOrigins() {
        let check = WebHostCheck(listenHost: "0.0.0.0", hostName: "room-214", localAddresses: interfaces)
        for origin: String? in [nil, "null", "http://room-214.local:8080", "https://192.168.1.5", "http://[2001:db8::5]:8080",
                                "HTTP://ROOM-214:8080"] {
            XCTAssertTrue(check.accepts(origin: origin), origin ?? "nil")
        }
        for origin in ["http://evil.example", "http://evil.example:8080", "ftp://room-214", "room-214", "http://room-214/x",
                       "http://192.168.1.6:8080", ""] {
            XCTAssertFalse(check.accepts(origin: origin), origin)
        }
    }

    /// Before login, before anything: a foreign Host gets 421 and nothing else; a foreign Origin on a POST 403.
    func testTheHandlerRefusesForeignRequestsFirst() throws {
        let hash = try PasswordHash(hashing: "right password", iterations: 1000)
        let check = WebHostCheck(listenHost: "127.0.0.1", hostName: "room-214")
        let handler = WebRequestHandler(password: hash, presets: [], idleTimeout: .seconds(60), timeSource: ManualTimeSource(),
                                        newToken: { "token" }, hostCheck: check) { _ in true }
        for path in ["/", "/login", "/api/state", "/style.css"] {
            let response = handler.respond(to: WebRequest(method: "GET", target: path, host: "evil.example:8080"))
            XCTAssertEqual(response.status, 421, path)
            XCTAssertEqual(response.header("Content-Type"), "text/plain; charset=utf-8")
            XCTAssertTrue(response.text.contains("allowed-hosts"), response.text)
            XCTAssertNil(response.header("Set-Cookie"))
            XCTAssertEqual(response.header("X-Frame-Options"), "DENY", "the security headers too")
        }
        XCTAssertEqual(handler.respond(to: WebRequest(method: "GET", target: "/login")).status, 421, "no Host at all")
        let login = { (host: String, origin: String?) in
            handler.respond(to: WebRequest(method: "POST", target: "/login", contentType: "application/x-www-form-urlencoded",
                                           host: host, origin: origin, body: Array("password=right+password".utf8)))
        }
        XCTAssertEqual(login("evil.example", nil).status, 421)
        var oversized = WebRequest(method: "POST", target: "/config", host: "evil.example")
        oversized.bodyTooLarge = true
        XCTAssertEqual(handler.respond(to: oversized).status, 421, "the Host before the body's size")
        XCTAssertEqual(login("127.0.0.1:8080", "http://evil.example").status, 403)
        XCTAssertEqual(handler.sessionCount, 0, "a refused request logs nobody in")
        XCTAssertEqual(login("127.0.0.1:8080", "null").status, 303, "no-referrer pages post with Origin: null")
        XCTAssertEqual(login("room-214.local:8080", "http://room-214.local:8080").status, 303)
        XCTAssertEqual(handler.respond(to: WebRequest(method: "GET", target: "/login", host: "LOCALHOST:8080")).status, 200)
    }

    func testAllowedHostsSetting() throws {
        func parse(_ text: String) throws -> WebSection {
            try ConfigFile(path: "gateway.conf", text: text).settings(WebSection.self)
        }
        XCTAssertEqual(try parse("[web]\npassword-file = /p\nallowed-hosts = TV-214.hotel.lan. 203.0.113.7, 2001:db8::5\n").server?.allowedHosts,
                       ["tv-214.hotel.lan", "203.0.113.7", "2001:db8::5"])
        XCTAssertEqual(try parse("[web]\npassword-file = /p\n").server?.allowedHosts, [])
        for value in ["http://tv.lan", "tv.lan/x", "-tv", "tv..lan", "[::1]", "tv.lan:8080", "t\u{e9}l\u{e9}.lan"] {
            XCTAssertThrowsError(try parse("[web]\npassword-file = /p\n\nallowed-hosts = a.lan \(value)\n")) { error in
                XCTAssertTrue("\(error)".hasPrefix("gateway.conf:4: [web] allowed-hosts: must be host names or numeric addresses"),
                              "\(error)")
            }
        }
    }
}
