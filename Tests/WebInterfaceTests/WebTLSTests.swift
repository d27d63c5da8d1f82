import Configuration
import Foundation
import SystemSupport
import TestSupport
import TLS
import WebInterface
import XCTest

/// `[web] tls`: the typed setting, and the certificate made once and kept.
final class WebTLSTests: XCTestCase {
    private func parse(_ text: String) throws -> WebSettings? {
        try ConfigFile(path: "gateway.conf", text: "[web]\npassword-file = /p\n" + text).settings(WebSection.self).server
    }

    private func temporaryDirectory() throws -> String {
        var template = Array("/tmp/cast-gateway-web-tls.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw XCTSkip("mkdtemp failed") }
        let path = String(cString: made)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testTheSetting() throws {
        XCTAssertEqual(try parse("")?.tls, .off)
        XCTAssertEqual(try parse("")?.scheme, "http")
        XCTAssertEqual(try parse("tls = off\n")?.tls, .off)
        XCTAssertEqual(try parse("tls = self-signed\n")?.tls, .selfSigned(directory: "/var/lib/cast-gateway"))
        XCTAssertEqual(try parse("tls = self-signed\nstate-directory = /data/gw\n")?.tls, .selfSigned(directory: "/data/gw"))
        XCTAssertEqual(try parse("tls = files\ncertificate-file = /etc/c.pem\nkey-file = /etc/k.pem\n")?.tls,
                       .files(certificate: "/etc/c.pem", key: "/etc/k.pem"))
        let https = try XCTUnwrap(try parse("listen = 192.168.1.5:8443\ntls = self-signed\n"))
        XCTAssertEqual(https.scheme, "https")
        XCTAssertEqual(https.pageURL(hostName: "room-214"), "https://192.168.1.5:8443/")
        XCTAssertEqual(https.serviceRecord(hostName: "room-214", port: 8443)?.type, "_https._tcp")
        XCTAssertEqual(try parse("")?.serviceRecord(hostName: "room-214", port: 8080)?.type, "_http._tcp")
    }

    func testBadSettingsNameFileLineAndKey() {
        let cases: [(String, String)] = [
            ("tls = on\n", "gateway.conf:3: [web] tls: must be off, self-signed or files, got 'on'"),
            ("tls = files\ncertificate-file = /c.pem\n", "gateway.conf:3: [web] tls: files needs certificate-file and key-file"),
            ("tls = files\ncertificate-file = c.pem\nkey-file = /k.pem\n", "gateway.conf:4: [web] certificate-file: must be an absolute path"),
            ("key-file = /k.pem\n", "gateway.conf:3: [web] key-file: is used only with tls = files"),
            ("tls = self-signed\ncertificate-file = /c.pem\n", "gateway.conf:4: [web] certificate-file: is used only with tls = files"),
            ("tls = self-signed\nstate-directory = state\n", "gateway.conf:4: [web] state-directory: must be an absolute path"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try parse(text)) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(error)")
            }
        }
    }

    /// Made at the first start (key 0600), the same certificate at the next.
    func testTheSelfSignedCertificateIsMadeOnceAndKept() throws {
        let directory = try temporaryDirectory() + "/state"
        var told: [String] = []
        let first = try XCTUnwrap(try WebCertificate.credentials(.selfSigned(directory: directory), hostName: "room-214",
                                                                 listenHost: "0.0.0.0") { path, _ in told.append(path) })
        XCTAssertEqual(told, [directory + "/web-certificate.pem"])
        XCTAssertTrue(first.certificate.hasPrefix("-----BEGIN CERTIFICATE-----"), first.certificate)
        XCTAssertTrue(first.key.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        XCTAssertEqual(FileSystem.permissions(of: directory + "/web-key.pem").map { $0 & 0o777 }, 0o600)
        XCTAssertEqual(try FileSystem.readText(directory + "/web-key.pem"), first.key)
        let again = try XCTUnwrap(try WebCertificate.credentials(.selfSigned(directory: directory), hostName: "room-214",
                                                                 listenHost: "0.0.0.0") { path, _ in told.append(path) })
        XCTAssertEqual(again, first)
        XCTAssertEqual(told.count, 1, "nothing new was made")
        XCTAssertEqual(first.fingerprint.split(separator: ":").count, 32)
        // Given files: the same pair reads back; a key of another certificate is refused, naming the files.
        let files = try XCTUnwrap(try WebCertificate.credentials(
            .files(certificate: directory + "/web-certificate.pem", key: directory + "/web-key.pem"), hostName: nil, listenHost: "::"))
        XCTAssertEqual(files.fingerprint, first.fingerprint)
        let other = try SelfSignedCertificate.makePEM(commonName: "other", alternativeNames: [], validDays: 1)
        try FileSystem.writeAtomically(directory + "/other-key.pem", bytes: Array(other.key.utf8), mode: 0o600)
        XCTAssertThrowsError(try WebCertificate.credentials(
            .files(certificate: directory + "/web-certificate.pem", key: directory + "/other-key.pem"), hostName: nil, listenHost: "::")) {
            XCTAssertTrue("\($0)".contains("the key in \(directory)/other-key.pem is not the key of the certificate in"), "\($0)")
            XCTAssertFalse("\($0)".contains("BEGIN"), "no key material in the message")
        }
        XCTAssertThrowsError(try WebCertificate.credentials(.files(certificate: directory + "/missing.pem", key: directory + "/web-key.pem"),
                                                            hostName: nil, listenHost: "::")) {
            XCTAssertTrue("\($0)".contains("check [web] certificate-file and key-file"), "\($0)")
        }
        XCTAssertThrowsError(try WebCertificate.credentials(.selfSigned(directory: "/proc/no-such/dir"), hostName: nil, listenHost: "::")) {
            XCTAssertTrue("\($0)".contains("set [web] state-directory to a writable directory"), "\($0)")
        }
    }

    /// Over HTTPS the session cookie is `Secure`: a browser never sends it back over plain HTTP.
    func testTheSessionCookieIsSecureOverHTTPS() throws {
        let hash = try PasswordHash(hashing: "right password", iterations: 1000)
        for secure in [false, true] {
            let handler = WebRequestHandler(password: hash, presets: [], idleTimeout: .seconds(60), timeSource: ManualTimeSource(),
                                            newToken: { "token" }, secureCookie: secure) { _ in true }
            let login = handler.respond(to: WebRequest(method: "POST", target: "/login", contentType: "application/x-www-form-urlencoded",
                                                       body: Array("password=right+password".utf8)))
            XCTAssertEqual(login.status, 303)
            XCTAssertEqual(login.header("Set-Cookie"),
                           "cg_session=token; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : ""))
        }
    }
}
