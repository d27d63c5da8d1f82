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
            ("[web]\npassword-file = /p\nmdns = yes\n", "gateway.conf:3: [web] mdns: must be auto, on or off"),
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

    /// The page's mDNS record: `_http._tcp`, the box's name, the bound port, `path=/`; not for loopback unless asked.
    func testTheServiceRecordPublished() throws {
        func record(_ listen: String, mdns: String? = nil, host: String? = "room-214", port: UInt16 = 8080) throws -> WebServiceRecord? {
            let line = mdns.map { "mdns = \($0)\n" } ?? ""
            return try parse("[web]\nlisten = \(listen)\npassword-file = /p\n\(line)").server?.serviceRecord(hostName: host, port: port)
        }
        XCTAssertEqual(WebServiceRecord.serviceType, "_http._tcp")
        XCTAssertEqual(try record("0.0.0.0:8080"), WebServiceRecord(name: "room-214", port: 8080, txt: ["path=/"]))
        XCTAssertEqual(try record("[::]:8081", port: 8081), WebServiceRecord(name: "room-214", port: 8081, txt: ["path=/"]))
        XCTAssertEqual(try record("192.168.1.5:80", host: nil, port: 80)?.name, "cast-gateway", "no host name: a fixed name")
        XCTAssertNil(try record("127.0.0.1:8080"), "auto: loopback is not published")
        XCTAssertNil(try record("[::1]:8080"))
        XCTAssertNil(try record("0.0.0.0:8080", mdns: "off"))
        XCTAssertEqual(try record("127.0.0.1:0", mdns: "on", port: 41234), WebServiceRecord(name: "room-214", port: 41234, txt: ["path=/"]),
                       "on: published even on loopback (tests), with the bound port")
        XCTAssertNil(try record("0.0.0.0:0", port: 0), "no port yet, nothing to publish")
    }
}
