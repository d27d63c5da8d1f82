import Configuration
import WebInterface
import XCTest

final class WebSectionTests: XCTestCase {
    private func parse(_ text: String) throws -> WebSection {
        try ConfigFile(path: "gateway.conf", text: text).settings(WebSection.self)
    }

    func testNoSectionNoInterface() throws {
        let section = try parse("[device]\nhost = 10.0.0.2\n")
        XCTAssertNil(section.server)
        XCTAssertNil(section.disabledReason)
    }

    func testNoPasswordFileNoInterfaceAndTheReason() throws {
        let section = try parse("[web]\nlisten = 0.0.0.0:8080\n")
        XCTAssertNil(section.server)
        XCTAssertTrue(section.disabledReason?.contains("cast-gateway web-password") ?? false)
    }

    func testListenAndPasswordFile() throws {
        let section = try parse("[web]\nlisten = [::]:8081\npassword-file = /etc/cast-gateway/web-password\nsession-idle-minutes = 5\n")
        XCTAssertEqual(section.server?.listen.port, 8081)
        XCTAssertEqual(section.server?.listen.isIPv6, true)
        XCTAssertEqual(section.server?.passwordFile, "/etc/cast-gateway/web-password")
        XCTAssertEqual(section.server?.sessionIdleTimeout, .seconds(300))
        XCTAssertEqual(try parse("[web]\npassword-file = /p\n").server?.listen.description, "0.0.0.0:8080")
        XCTAssertEqual(try parse("[web]\nlisten = 127.0.0.1:0\npassword-file = /p\n").server?.listen.port, 0)
    }

    func testBadValuesNameFileLineAndKey() {
        let cases: [(String, String)] = [
            ("[web]\nlisten = example.com:80\npassword-file = /p\n", "gateway.conf:2: [web] listen: must be a numeric ADDRESS:PORT"),
            ("[web]\nlisten = 0.0.0.0:99999\n", "gateway.conf:2: [web] listen"),
            ("[web]\npassword-file = web-password\n", "gateway.conf:2: [web] password-file: must be an absolute path"),
            ("[web]\n\npassword = hunter2\n", "gateway.conf:3: [web] password: unknown key"),
            ("[web]\nsession-idle-minutes = 0\n", "gateway.conf:2: [web] session-idle-minutes"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try parse(text)) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(error)")
                XCTAssertFalse("\(error)".contains("hunter2"), "a secret was repeated")
            }
        }
    }

    /// Home Assistant's link to the page: somewhere another host can follow.
    func testThePageURLOthersCanFollow() throws {
        func url(_ listen: String, host: String? = "room-214") throws -> String? {
            try parse("[web]\nlisten = \(listen)\npassword-file = /p\n").server?.pageURL(hostName: host)
        }
        XCTAssertEqual(try url("0.0.0.0:8080"), "http://room-214.local:8080/")
        XCTAssertEqual(try url("[::]:8081"), "http://room-214.local:8081/")
        XCTAssertEqual(try url("192.168.1.5:80"), "http://192.168.1.5:80/")
        XCTAssertEqual(try url("[2001:db8::5]:8080"), "http://[2001:db8::5]:8080/")
        XCTAssertNil(try url("0.0.0.0:8080", host: nil), "no host name, no mDNS name")
        XCTAssertNil(try url("127.0.0.1:8080"), "loopback: only the box itself could open it")
        XCTAssertNil(try url("[::1]:8080"))
        XCTAssertNil(try url("127.0.0.1:0"))
    }
}
