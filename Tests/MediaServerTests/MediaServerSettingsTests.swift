import Configuration
import Foundation
import MediaServer
import SystemSupport
import XCTest

final class MediaServerSettingsTests: XCTestCase {
    private func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cast-gateway-test-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    private func assertRefused(_ settings: MediaServerSettings, mentioning text: String, file: StaticString = #filePath,
                               line: UInt = #line) {
        XCTAssertThrowsError(try settings.validated(), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
        }
    }

    func testDefaults() {
        let settings = MediaServerSettings(roots: ["/srv/media"])
        XCTAssertEqual(settings.port, 8090)
        XCTAssertEqual(settings.corsOrigin, "*")
    }

    func testValidRootsAreResolved() throws {
        let dir = try directory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("a"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link").path, withDestinationPath: "a")
        let roots = try MediaServerSettings(roots: [dir.appendingPathComponent("link").path]).validated()
        XCTAssertEqual(roots.paths, [MediaRoots.realPath(dir.appendingPathComponent("a").path)])
    }

    func testBadRootsAreExplained() throws {
        let dir = try directory()
        let file = dir.appendingPathComponent("file.mp4")
        try Data("x".utf8).write(to: file)
        assertRefused(MediaServerSettings(roots: []), mentioning: "empty")
        assertRefused(MediaServerSettings(roots: ["media"]), mentioning: "not an absolute path")
        assertRefused(MediaServerSettings(roots: [dir.appendingPathComponent("missing").path]), mentioning: "No such file")
        assertRefused(MediaServerSettings(roots: [file.path]), mentioning: "not a directory")
        assertRefused(MediaServerSettings(roots: ["/"]), mentioning: "whole file system")
        assertRefused(MediaServerSettings(roots: [dir.path, dir.path + "/."]), mentioning: "same directory")
        assertRefused(MediaServerSettings(roots: [dir.path], corsOrigin: "https://a.example/path"), mentioning: "cors-origin")
        assertRefused(MediaServerSettings(roots: [dir.path], corsOrigin: "a b"), mentioning: "cors-origin")
        XCTAssertNoThrow(try MediaServerSettings(roots: [dir.path], corsOrigin: "https://receiver.example.com:8443").validated())
    }

    /// `text` as `gateway.conf`, its `[media]` section read as the daemon reads it.
    private func section(_ text: String) throws -> MediaSection {
        var section = try ConfigFile(path: "gateway.conf", text: text).section(MediaSection.sectionName)
        let media = try MediaSection(from: &section)
        try section.checkForUnknownKeys()
        return media
    }

    private func assertSectionError(_ text: String, line: Int?, key: String, contains fragment: String,
                                    file: StaticString = #filePath, lineNumber: UInt = #line) {
        XCTAssertThrowsError(try section(text), file: file, line: lineNumber) { error in
            guard let error = error as? ConfigError else { return XCTFail("not a ConfigError: \(error)", file: file, line: lineNumber) }
            XCTAssertEqual(error.file, "gateway.conf", file: file, line: lineNumber)
            XCTAssertEqual(error.line, line, "\(error)", file: file, line: lineNumber)
            XCTAssertEqual(error.key, key, "\(error)", file: file, line: lineNumber)
            XCTAssertTrue(error.description.contains(fragment), "\(error)", file: file, line: lineNumber)
        }
    }

    func testTheMediaSection() throws {
        let dir = try directory()
        XCTAssertNil(try section("[device]\nhost = tv\n").server, "no [media]: no server")
        XCTAssertEqual(try section("[media]\nroots = \(dir.path)\n").server, MediaServerSettings(roots: [dir.path]))
        XCTAssertEqual(try section("[media]\nroots = \(dir.path) , \nport = 0\ncors-origin = https://r.example\n").server,
                       MediaServerSettings(roots: [dir.path], port: 0, corsOrigin: "https://r.example"))
        assertSectionError("[device]\nhost = tv\n\n[media]\nport = 8090\n", line: 4, key: "[media] roots",
                           contains: "is missing: name the directories to serve, e.g. roots = /srv/media")
        assertSectionError("[media]\nroots = \(dir.path)\nport = 70000\n", line: 3, key: "[media] port",
                           contains: "must be a TCP port (0 = any free port), got '70000'")
        assertSectionError("[media]\nroots = \(dir.path)\ncors-origin =\n", line: 3, key: "[media] cors-origin", contains: "must not be empty")
        assertSectionError("[media]\nroots = media\n", line: 2, key: "[media] roots",
                           contains: "gateway.conf:2: [media] roots: media server: [media] roots: 'media' is not an absolute path")
        assertSectionError("[media]\nroots = \(dir.path)\ncors-origin = https://a.example/path\n", line: 3, key: "[media] cors-origin",
                           contains: "[media] cors-origin = 'https://a.example/path' is not * or an origin")
        assertSectionError("[media]\nroots = \(dir.path)\nroot = /srv\n", line: 3, key: "[media] root",
                           contains: "unknown key; keys in [media]: roots, port, cors-origin")
    }

    func testSidecarMatching() {
        let names = ["Movie.vtt", "Movie.en.vtt", "Movie.pt-BR.vtt", "Movie.forced.vtt", "Movie 2.vtt", "Other.en.vtt",
                     "Movie.mp4", "Movie.de.VTT", "Movie..vtt"]
        let matched = SidecarSubtitles.match(mediaFileName: "Movie.mp4", candidates: names)
        XCTAssertEqual(matched.map(\.fileName), ["Movie.vtt", "Movie.de.VTT", "Movie.en.vtt", "Movie.pt-BR.vtt"])
        XCTAssertEqual(matched.map(\.language), [nil, "de", "en", "pt-BR"])
        XCTAssertTrue(SidecarSubtitles.match(mediaFileName: "noextension", candidates: names).isEmpty)
    }

    func testRouteSourceToLoopback() throws {
        XCTAssertEqual(try RouteSource.localAddress(toward: "127.0.0.1"), "127.0.0.1")
        XCTAssertEqual(try RouteSource.localAddress(toward: "::1"), "::1")
        XCTAssertThrowsError(try RouteSource.localAddress(toward: "tv.local")) { error in
            XCTAssertEqual((error as? MediaServerError)?.code, .routeUnavailable)
        }
    }
}
