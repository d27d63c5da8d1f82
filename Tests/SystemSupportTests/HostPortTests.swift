import SystemSupport
import XCTest

/// The one host:port parser: names, IPv4, bracketed and bare IPv6, the port
/// range, and errors that quote the text at fault.
final class HostPortTests: XCTestCase {
    private func parse(_ text: String, allowsBareIPv6: Bool = true) throws -> HostPort {
        try HostPort.parse(text, defaultPort: 8009, allowsBareIPv6: allowsBareIPv6)
    }

    private func failure(_ text: String, allowsBareIPv6: Bool = true) -> HostPortError? {
        do {
            _ = try HostPort.parse(text, defaultPort: 8009, allowsBareIPv6: allowsBareIPv6)
            return nil
        } catch {
            return error
        }
    }

    func testTheFormsPeopleWrite() throws {
        XCTAssertEqual(try parse("tv"), HostPort(host: "tv", port: 8009))
        XCTAssertEqual(try parse("tv.local:8010"), HostPort(host: "tv.local", port: 8010))
        XCTAssertEqual(try parse("192.168.1.20:65535"), HostPort(host: "192.168.1.20", port: 65535))
        XCTAssertEqual(try parse("[fe80::1%eth0]:8010"), HostPort(host: "fe80::1%eth0", port: 8010))
        XCTAssertEqual(try parse("[::1]"), HostPort(host: "::1", port: 8009))
        XCTAssertEqual(try parse("fe80::1"), HostPort(host: "fe80::1", port: 8009), "bare IPv6: no port")
        XCTAssertEqual(try HostPort.parse("broker"[...], defaultPort: 1883).port, 1883)
    }

    func testDescriptionBracketsIPv6() {
        XCTAssertEqual(HostPort(host: "fe80::1", port: 8009).description, "[fe80::1]:8009")
        XCTAssertEqual(HostPort(host: "tv", port: 8009).description, "tv:8009")
    }

    func testErrorsNameTheBadText() {
        XCTAssertEqual(failure("tv:0"), HostPortError(.badPort, "0"))
        XCTAssertEqual(failure("tv:65536"), HostPortError(.badPort, "65536"))
        XCTAssertEqual(failure("tv:http"), HostPortError(.badPort, "http"))
        XCTAssertEqual(failure("tv:"), HostPortError(.badPort, ""))
        XCTAssertEqual(failure("[::1]:"), HostPortError(.badPort, ""))
        XCTAssertEqual(failure("[fe80::1"), HostPortError(.unclosedBracket, "[fe80::1"))
        XCTAssertEqual(failure("[fe80::1]8009"), HostPortError(.textAfterBracket, "[fe80::1]8009"))
        XCTAssertEqual(failure(""), HostPortError(.noHost, ""))
        XCTAssertEqual(failure(":8009"), HostPortError(.noHost, ":8009"))
        XCTAssertEqual(failure("[]:8009"), HostPortError(.noHost, "[]:8009"))
        XCTAssertEqual(failure("tv:99999")?.description, "'99999' is not a port (1-65535)")
        XCTAssertEqual(failure("[fe80::1")?.description, "'[fe80::1' has an unclosed '[' around an IPv6 address")
    }

    func testWithoutBareIPv6TheFirstColonStartsThePort() {
        XCTAssertEqual(failure("fe80::1", allowsBareIPv6: false), HostPortError(.badPort, ":1"))
        XCTAssertEqual(try parse("[fe80::1]:1884", allowsBareIPv6: false), HostPort(host: "fe80::1", port: 1884))
    }
}
