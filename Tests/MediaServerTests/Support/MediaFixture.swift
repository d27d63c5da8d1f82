import Foundation
import MediaServer
import XCTest

/// A media root with known files, a canary file outside it, and a running
/// MediaServer on 127.0.0.1 (free port). Removed and stopped after the test.
final class MediaFixture {
    let base: URL
    let root: URL
    let outside: URL
    let canary: URL
    let server: MediaServer
    let video: [UInt8]
    var port: UInt16 = 0

    static let canaryText = "CANARY-outside-the-root-must-never-be-served"

    init(test: XCTestCase, corsOrigin: String = "*", limits: ConnectionLimits = ConnectionLimits()) async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("cast-gateway-test-media-\(UUID().uuidString)")
        root = base.appendingPathComponent("root")
        outside = base.appendingPathComponent("outside")
        canary = outside.appendingPathComponent("canary.mp4")
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("Movies/Sub Dir"), withIntermediateDirectories: true)
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data(MediaFixture.canaryText.utf8).write(to: canary)
        // 200 000 bytes with a position-dependent pattern: any wrong offset shows.
        video = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        try Data(video).write(to: root.appendingPathComponent("video.mp4"))
        try Data("WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n".utf8).write(to: root.appendingPathComponent("video.vtt"))
        try Data("WEBVTT\n".utf8).write(to: root.appendingPathComponent("video.de.vtt"))
        try Data("hidden".utf8).write(to: root.appendingPathComponent(".hidden.mp4"))
        try Data("x".utf8).write(to: root.appendingPathComponent("Movies/Sub Dir/ä b+c.mkv"))
        for ext in ["webm", "mkv", "mp3", "aac", "m4a", "flac", "jpg", "jpeg", "png", "m3u8", "ts", "bin"] {
            try Data("x".utf8).write(to: root.appendingPathComponent("sample.\(ext)"))
        }
        server = try MediaServer(settings: MediaServerSettings(roots: [root.path], port: 0, corsOrigin: corsOrigin), limits: limits)
        let base = self.base
        let server = self.server
        test.addTeardownBlock {
            await server.stop()
            try? FileManager.default.removeItem(at: base)
        }
        port = try await server.listen(on: "127.0.0.1").port
    }

    /// The URL of `target` (`/0/video.mp4`), behind the server's token.
    func url(_ target: String) -> String { "http://127.0.0.1:\(port)\(server.urlPrefix)\(target)" }
}
