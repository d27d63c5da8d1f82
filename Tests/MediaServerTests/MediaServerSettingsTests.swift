import Foundation
import MediaServer
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
