import Foundation
import JSON
import XCTest

/// The web interface of a real `cast-gateway run`, driven with curl on
/// loopback, with the receiver simulator as the TV.
final class WebInterfaceIntegrationTests: XCTestCase {
    private let password = "tv-room password 7"
    private let hostileTitle = #"<img src=x onerror="alert(1)">Film"#

    /// `cast-gateway web-password FILE` with the password on its standard input, as an installer runs it.
    @discardableResult
    private func hashPassword(into file: String) throws -> ManagedProcess {
        let hasher = try ManagedProcess(BuildProducts.path("cast-gateway"), ["web-password", file])
        hasher.send(password)
        hasher.closeInput()
        XCTAssertEqual(hasher.waitForExit(), 0, hasher.allOutput)
        return hasher
    }

    func testLoginCSRFControlsLiveStateAndLockout() throws {
        let directory = try temporaryDirectory(self)
        let passwordFile = directory.appendingPathComponent("web-password").path

        // web-password: one line from stdin, a hash in a 0600 file, nothing secret printed.
        let hasher = try hashPassword(into: passwordFile)
        XCTAssertFalse(hasher.allOutput.contains(password))
        let stored = try String(contentsOfFile: passwordFile, encoding: .utf8)
        XCTAssertTrue(stored.hasPrefix("pbkdf2-sha256$"), stored)
        XCTAssertFalse(stored.contains(password))
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: passwordFile)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)

        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let config = """
            [device]
            host = \(simulator.device)
            [presets]
            1 = http://media.test/film.mp4 | \(hostileTitle)
            [web]
            listen = 127.0.0.1:0
            password-file = \(passwordFile)

            """
        let check = try runGateway(["check-config", try writeConfig(config, in: directory)])
        XCTAssertTrue(check.output.contains("web: http://127.0.0.1:0/ (password hash in \(passwordFile))"), check.output)
        let daemon = try startGatewayDaemon(self, in: directory, config: config)
        let announced = try XCTUnwrap(daemon.waitForLine(containing: "web interface on http://"), daemon.allOutput)
        let base = try XCTUnwrap(announced.components(separatedBy: "web interface on ").last?.trimmingCharacters(in: .whitespaces))
        let jar = directory.appendingPathComponent("cookies").path

        // Before login: a redirect or 401, and no state.
        let front = try curl(base)
        XCTAssertEqual(front.status, 303)
        XCTAssertEqual(front.header("Location"), "/login")
        XCTAssertEqual(front.header("Content-Security-Policy"), "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
        XCTAssertEqual(front.header("X-Content-Type-Options"), "nosniff")
        let early = try curl(base + "api/state")
        XCTAssertEqual(early.status, 401)
        XCTAssertFalse(early.body.contains("device"), early.body)

        // A wrong password: no cookie.
        let wrong = try curl(base + "login", ["--data-urlencode", "password=not it", "-c", jar])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertTrue(wrong.body.contains("Wrong password."), wrong.body)
        XCTAssertNil(wrong.header("Set-Cookie"))

        // The right one: an HttpOnly, SameSite=Strict session cookie.
        let login = try curl(base + "login", ["--data-urlencode", "password=\(password)", "-c", jar])
        XCTAssertEqual(login.status, 303)
        let cookie = try XCTUnwrap(login.header("Set-Cookie"))
        XCTAssertTrue(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), cookie)
        let page = try curl(base, ["-b", jar])
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains("Preset 1: &lt;img src=x onerror=&quot;alert(1)&quot;&gt;Film"), page.body)
        XCTAssertFalse(page.body.contains("<img"))
        let csrf = try XCTUnwrap(page.body.components(separatedBy: #"name="csrf-token" content=""#).dropFirst().first?
            .prefix { $0 != "\"" }).description
        XCTAssertEqual(csrf.count, 64)

        // A control without the CSRF token, or with a wrong one, is refused and reaches nothing.
        XCTAssertEqual(try curl(base + "control", ["-b", jar, "-d", "control=preset-1"]).status, 403)
        XCTAssertEqual(try curl(base + "control", ["-b", jar, "-d", "control=preset-1&csrf=\(String(csrf.reversed()))"]).status, 403)
        XCTAssertEqual(simulator.mediaCommands(), [])

        // The preset loads; the state shows its (hostile) title as data.
        XCTAssertEqual(try curl(base + "control", ["-b", jar, "-d", "control=preset-1&csrf=\(csrf)"]).status, 303)
        let playing = try waitForState(base, jar) { $0["player"]?.stringValue == "PLAYING" }
        XCTAssertEqual(playing?["title"]?.stringValue, hostileTitle)

        // Pause from the page reaches the receiver as a PAUSE message.
        let pause = try curl(base + "control", ["-b", jar, "-H", "X-Requested-With: fetch", "-d", "control=pause&csrf=\(csrf)"])
        XCTAssertEqual(pause.status, 204)
        XCTAssertNotNil(try waitForState(base, jar) { $0["player"]?.stringValue == "PAUSED" })
        XCTAssertEqual(simulator.mediaCommands(), ["LOAD", "PAUSE"])

        // Another sender resumes: the state follows within 2 s, with no action from this side.
        XCTAssertEqual(simulator.control("play"), "ok")
        XCTAssertNotNil(try waitForState(base, jar, timeout: 2) { $0["player"]?.stringValue == "PLAYING" })

        // Five wrong passwords: the sixth attempt is refused even with the right password.
        for _ in 0..<5 { XCTAssertEqual(try curl(base + "login", ["-d", "password=guess"]).status, 401) }
        let locked = try curl(base + "login", ["--data-urlencode", "password=\(password)"])
        XCTAssertEqual(locked.status, 429)
        XCTAssertNil(locked.header("Set-Cookie"))
        // The session made before still works.
        XCTAssertEqual(try curl(base + "api/state", ["-b", jar]).status, 200)

        let log = daemon.allOutput
        XCTAssertFalse(log.contains(password), "the password was logged")
        XCTAssertFalse(log.contains(csrf), "the CSRF token was logged")
        XCTAssertFalse(log.contains(stored.trimmingCharacters(in: .whitespacesAndNewlines)), "the hash was logged")
        XCTAssertTrue(log.contains("login refused without checking the password"), log)
    }

    /// The config form carries a whole file through libmicrohttpd (far over
    /// the 4 KiB other forms may have), and a body over its own bound gets 413.
    func testTheConfigFormTakesAWholeFileButNoMore() throws {
        let directory = try temporaryDirectory(self)
        let passwordFile = directory.appendingPathComponent("web-password").path
        try hashPassword(into: passwordFile)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let config = """
            [device]
            host = \(simulator.device)
            [web]
            listen = 127.0.0.1:0
            password-file = \(passwordFile)

            """
        let daemon = try startGatewayDaemon(self, in: directory, config: config)
        let announced = try XCTUnwrap(daemon.waitForLine(containing: "web interface on http://"), daemon.allOutput)
        let base = try XCTUnwrap(announced.components(separatedBy: "web interface on ").last?.trimmingCharacters(in: .whitespaces))
        let jar = directory.appendingPathComponent("cookies").path
        XCTAssertEqual(try curl(base + "login", ["--data-urlencode", "password=\(password)", "-c", jar]).status, 303)
        let page = try curl(base + "config", ["-b", jar])
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.body.contains("password-file = ********"), page.body)
        let csrf = try XCTUnwrap(page.body.components(separatedBy: #"name="csrf" value=""#).dropFirst().first?.prefix { $0 != "\"" }).description

        // 60 KB of comment: about 180 KB once percent-encoded, within the bound.
        let shown = config.replacingOccurrences(of: "password-file = \(passwordFile)", with: "password-file = ********")
        let long = directory.appendingPathComponent("long.conf")
        try (shown + "# " + String(repeating: "\u{e9}", count: 30_000) + "\n").write(to: long, atomically: true, encoding: .utf8)
        let checked = try curl(base + "config", ["-b", jar, "-d", "csrf=\(csrf)&action=check", "--data-urlencode", "text@\(long.path)"])
        XCTAssertEqual(checked.status, 200, checked.body)
        XCTAssertTrue(checked.body.contains("No problems found"), checked.body)

        let tooLong = directory.appendingPathComponent("too-long.conf")
        try (shown + "# " + String(repeating: "\u{e9}", count: 40_000) + "\n").write(to: tooLong, atomically: true, encoding: .utf8)
        let refused = try curl(base + "config", ["-b", jar, "-d", "csrf=\(csrf)&action=apply", "--data-urlencode", "text@\(tooLong.path)"])
        XCTAssertEqual(refused.status, 413, refused.body)
        XCTAssertEqual(try curl(base + "api/state", ["-b", jar]).status, 200, "the interface still answers")
    }

    private func writeConfig(_ text: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("check.conf")
        try text.write(to: path, atomically: true, encoding: .utf8)
        return path.path
    }

    /// Polls /api/state (as the page does) until `match` holds, up to `timeout` seconds.
    private func waitForState(_ base: String, _ jar: String, timeout: TimeInterval = 10,
                              _ match: (JSONValue) -> Bool) throws -> JSONValue? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let response = try curl(base + "api/state", ["-b", jar])
            if response.status == 200, let state = try? JSONValue(parsing: response.body), match(state) { return state }
        } while Date() < deadline
        return nil
    }
}

/// One curl exchange: the status, the headers and the body.
struct CurlResponse {
    var status: Int
    var headers: [(String, String)]
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// Runs curl (loopback only) and parses its `-i` output.
func curl(_ url: String, _ arguments: [String] = []) throws -> CurlResponse {
    precondition(url.hasPrefix("http://127.0.0.1:") || url.hasPrefix("http://[::1]:"), "tests talk to loopback only")
    let process = try ManagedProcess("/usr/bin/curl", ["-s", "-i", "--max-time", "10"] + arguments + [url])
    guard process.waitForExit(timeout: 15) == 0 else { throw StartupError(message: "curl \(url) failed: \(process.allOutput)") }
    var lines = process.stdout.map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
    guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else {
        throw StartupError(message: "curl \(url): no HTTP status in \(lines)")
    }
    lines.removeFirst()
    var headers: [(String, String)] = []
    while let line = lines.first, !line.isEmpty {
        lines.removeFirst()
        if let colon = line.firstIndex(of: ":") {
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
    }
    return CurlResponse(status: status, headers: headers, body: lines.dropFirst().joined(separator: "\n"))
}
