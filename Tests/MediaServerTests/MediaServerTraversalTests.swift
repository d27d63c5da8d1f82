import Foundation
import MediaServer
import XCTest

/// Attempts to read outside the root, with real clients. Each must get the
/// right status, and the canary file outside the root must never even be
/// opened (inotify watches the directory that holds it).
final class MediaServerTraversalTests: XCTestCase {
    private var fixture: MediaFixture!
    private var watch: CanaryWatch!

    override func setUp() async throws {
        fixture = try await MediaFixture(test: self)
        let root = fixture.root
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link.mp4").path,
                                                   withDestinationPath: fixture.canary.path)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("escape").path,
                                                   withDestinationPath: "../outside")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("alias.mp4").path,
                                                   withDestinationPath: "video.mp4")
        XCTAssertEqual(mkfifo(root.appendingPathComponent("pipe.mp4").path, 0o644), 0)
        watch = try CanaryWatch(directory: fixture.outside.path)
    }

    override func tearDown() {
        watch = nil
        fixture = nil
    }

    private func assertStatus(_ target: String, _ expected: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let response = try curl(fixture.url(target))
        XCTAssertEqual(response.status, expected, target, file: file, line: line)
        XCTAssertFalse(response.bodyText.contains(MediaFixture.canaryText), target, file: file, line: line)
    }

    func testTraversalAttemptsAreRefusedAndNothingOutsideIsOpened() throws {
        try assertStatus("/0/../outside/canary.mp4", 403)
        try assertStatus("/0/Movies/../../outside/canary.mp4", 403)
        try assertStatus("/0/./video.mp4", 403)
        try assertStatus("/0/%2e%2e/outside/canary.mp4", 403)
        try assertStatus("/0/%2E%2E/outside/canary.mp4", 403)
        try assertStatus("/0/.%2e/outside/canary.mp4", 403)
        try assertStatus("/0/%2e%2e%2Foutside%2Fcanary.mp4", 400)
        try assertStatus("/0/..%2foutside%2fcanary.mp4", 400)
        try assertStatus("/0/%2F..%2F..%2Fetc%2Fpasswd", 400)
        try assertStatus("/0/..%5Coutside%5Ccanary.mp4", 400)
        try assertStatus("/0/..\\outside\\canary.mp4", 400)
        try assertStatus("/0/%252e%252e/outside/canary.mp4", 404)  // double encoding is a literal name
        try assertStatus("/0/%c0%ae%c0%ae/outside/canary.mp4", 400)  // overlong UTF-8 dots
        try assertStatus("/0//outside/canary.mp4", 400)
        try assertStatus("/0/video.mp4%00.vtt", 400)
        try assertStatus("/0/%00", 400)
        try assertStatus("/0/video%0a.mp4", 400)
        try assertStatus("/0/link.mp4", 403)  // symlink to a file outside
        try assertStatus("/0/escape/canary.mp4", 403)  // symlinked directory outside
        try assertStatus("/0/.hidden.mp4", 403)
        try assertStatus("/0/Movies", 403)  // a directory
        try assertStatus("/0/Movies/", 400)
        try assertStatus("/0/pipe.mp4", 403)  // a FIFO: refused, and open does not hang
        try assertStatus("/1/video.mp4", 404)
        try assertStatus("/01/video.mp4", 404)
        try assertStatus("/video.mp4", 404)
        try assertStatus("/", 404)
        try assertStatus("/0/alias.mp4", 200)  // a symlink that stays inside is fine
        XCTAssertEqual(watch.events(), [], "something opened or read the directory outside the root")
    }

    func testSymlinksToHiddenFilesAndIntoHiddenDirectoriesAreRefused() throws {
        // Named directly they are refused (403); behind a visible symlink they must be too.
        let root = fixture.root
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent(".private"), withIntermediateDirectories: true)
        try Data("secret".utf8).write(to: root.appendingPathComponent(".private/diary.mp4"))
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("visible.mp4").path, withDestinationPath: ".hidden.mp4")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("open").path, withDestinationPath: ".private")
        try fm.createSymbolicLink(atPath: root.appendingPathComponent("Movies/up.mp4").path,
                                  withDestinationPath: "../.private/diary.mp4")
        for target in ["/0/visible.mp4", "/0/open/diary.mp4", "/0/Movies/up.mp4", "/0/.private/diary.mp4"] {
            let response = try curl(fixture.url(target))
            XCTAssertEqual(response.status, 403, target)
            XCTAssertFalse(response.bodyText.contains("hidden") || response.bodyText.contains("secret"), target)
        }
        for link in ["visible.mp4", "open/diary.mp4", "Movies/up.mp4"] {
            XCTAssertFalse(fixture.server.canServe(root.appendingPathComponent(link).path), link)
        }
        try assertStatus("/0/alias.mp4", 200)  // a symlink to a visible file is still fine
    }

    func testTheCanaryWatchSeesAnOpen() throws {
        // The watch used above can fail: reading the canary shows up.
        _ = try Data(contentsOf: fixture.canary)
        XCTAssertTrue(watch.events().contains("canary.mp4"))
    }

    func testVeryLongPathsAreRefused() throws {
        let longComponent = String(repeating: "a", count: 300)
        try assertStatus("/0/\(longComponent).mp4", 414)
        let deep = "/0/" + Array(repeating: "d", count: 100).joined(separator: "/") + "/x.mp4"
        try assertStatus(deep, 414)
        let huge = "/0/" + String(repeating: "b", count: 5000)
        try assertStatus(huge, 414)
        // Beyond the connection's buffer, libmicrohttpd answers 414 itself.
        try assertStatus("/0/" + String(repeating: "../", count: 20000) + "outside/canary.mp4", 414)
        XCTAssertEqual(watch.events(), [])
    }

    func testRawNULAndUnencodedDotsOnTheWire() throws {
        // Raw bytes curl would not send: a NUL in the request line, and dots
        // no client normalised away. libmicrohttpd hands the target over as a
        // C string, so a raw NUL ends it there ("/0/nope": 404) unless the
        // library refuses the line itself (400); either way the part after
        // the NUL is never looked at.
        let token = fixture.server.urlPrefix
        let attempts: [[UInt8]] = [
            Array("GET \(token)/0/nope".utf8) + [0] + Array("/../../outside/canary.mp4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8),
            Array("GET \(token)/0/../outside/canary.mp4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8),
            Array("GET \(token)/0/%2e%2e/outside/canary.mp4 HTTP/1.0\r\n\r\n".utf8),
            Array("GET http://x\(token)/0/../outside/canary.mp4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8),
        ]
        for request in attempts {
            let response = try rawHTTP(port: fixture.port, request)
            let status = statusCode(of: response)
            XCTAssertTrue(status == 400 || status == 403 || status == 404 || (status == -1 && response.isEmpty),
                          "status \(status) for \(String(decoding: request, as: UTF8.self))")
            XCTAssertFalse(String(decoding: response, as: UTF8.self).contains(MediaFixture.canaryText))
        }
        XCTAssertEqual(watch.events(), [])
    }
}

/// inotify on a directory: any open or read of it or a file in it is recorded.
final class CanaryWatch {
    private let fd: Int32

    init(directory: String) throws {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw ToolError("inotify_init1: \(String(cString: strerror(errno)))") }
        guard inotify_add_watch(fd, directory, UInt32(IN_OPEN | IN_ACCESS)) >= 0 else {
            close(fd)
            throw ToolError("inotify_add_watch: \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// Names of the files opened or read since the watch started ("." for the directory).
    func events() -> [String] {
        var names: [String] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            var offset = 0
            while offset + 16 <= count {
                let length = buffer[offset + 12..<offset + 16].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + Int(length))].prefix { $0 != 0 }
                names.append(nameBytes.isEmpty ? "." : String(decoding: nameBytes, as: UTF8.self))
                offset += 16 + Int(length)
            }
        }
        return names
    }
}
