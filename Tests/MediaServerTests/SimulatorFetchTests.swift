import CastProtocol
import CurlMediaProbe
import Foundation
import JSON
import MediaServer
import ReceiverSimulator
import XCTest

/// `cast-receiver-sim --fetch-media`: the simulator fetches what LOAD names
/// (libcurl) from the real media server, python's http.server, or nowhere.
final class SimulatorFetchTests: XCTestCase {
    private func sender() async throws -> (RawSender, String) {
        var configuration = ReceiverSimulator.Configuration()
        configuration.mediaProbe = CurlMediaProbe(timeout: .seconds(5))
        let sender = await RawSender(simulator: try ReceiverSimulator(configuration: configuration))
        let transport = try await sender.launchMediaReceiver()
        return (sender, transport)
    }

    private let subtitles = MediaTrack(trackID: 1, kind: .text, subtype: "SUBTITLES", contentID: "http://127.0.0.1:1/x.vtt",
                                       contentType: "text/vtt", name: "English", language: "en")

    private func assertLoadFailed(_ answer: JSONValue?, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(answer?["type"]?.stringValue, "LOAD_FAILED", "\(String(describing: answer))", file: file, line: line)
        XCTAssertEqual(answer?["detailedErrorCode"]?.intValue, 104, file: file, line: line)
        XCTAssertEqual(answer?["itemId"]?.intValue, 1, file: file, line: line)
        XCTAssertNotNil(answer?["requestId"]?.intValue, file: file, line: line)
    }

    func testUnreachableMediaFailsTheLoad() async throws {
        let (sender, transport) = try await sender()
        // Port 1 on loopback: connection refused.
        let refused = await sender.load(MediaInformation(contentID: "http://127.0.0.1:1/movie.mp4", contentType: "video/mp4"),
                                        transport: transport)
        assertLoadFailed(refused)

        let fixture = try await MediaFixture(test: self)
        let missing = await sender.load(MediaInformation(contentID: fixture.url("/0/missing.mp4"), contentType: "video/mp4"),
                                        transport: transport)
        assertLoadFailed(missing)
        let traversal = await sender.load(MediaInformation(contentID: fixture.url("/0/%2e%2e/outside/canary.mp4"),
                                                           contentType: "video/mp4"), transport: transport)
        assertLoadFailed(traversal)
        let media = await sender.simulator.control("status")
        XCTAssertFalse(media.contains("PLAYING"), media)
    }

    func testMissingCORSFailsOnlyWhenTextTracksAreLoaded() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cast-gateway-test-plain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        try Data(repeating: 7, count: 1000).write(to: directory.appendingPathComponent("clip.webm"))
        // python's http.server sends no CORS headers.
        let python = try BackgroundProcess("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1",
                                                       "--directory", directory.path], test: self)
        let line = try XCTUnwrap(python.waitForLine(containing: "port"), "http.server did not start")
        let port = try XCTUnwrap(line.components(separatedBy: "port ").last?.split(separator: " ").first.flatMap { Int($0) })
        let url = "http://127.0.0.1:\(port)/clip.webm"

        let (sender, transport) = try await sender()
        let withTracks = await sender.load(MediaInformation(contentID: url, contentType: "video/webm", tracks: [subtitles]),
                                           transport: transport)
        assertLoadFailed(withTracks)

        let withoutTracks = await sender.load(MediaInformation(contentID: url, contentType: "video/webm"), transport: transport)
        XCTAssertEqual(withoutTracks?["type"]?.stringValue, "MEDIA_STATUS", "\(String(describing: withoutTracks))")

        // The media server sends CORS headers: the same LOAD with tracks plays.
        let fixture = try await MediaFixture(test: self)
        let served = await sender.load(MediaInformation(contentID: fixture.url("/0/sample.webm"), contentType: "video/webm",
                                                        tracks: [subtitles]), transport: transport)
        XCTAssertEqual(served?["type"]?.stringValue, "MEDIA_STATUS", "\(String(describing: served))")
        XCTAssertEqual(served?["status"]?.arrayValue?.first?["playerState"]?.stringValue, "PLAYING")
    }

    func testMP4DurationComesFromTheFile() async throws {
        let fixture = try await MediaFixture(test: self)
        let plain = fixture.root.appendingPathComponent("generated.mp4").path
        let faststart = fixture.root.appendingPathComponent("faststart.mp4").path
        for (path, flags) in [(plain, [String]()), (faststart, ["-movflags", "+faststart"])] {
            let made = try runTool("ffmpeg", ["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
                                              "testsrc=duration=3.5:size=320x240:rate=25", "-c:v", "mpeg4", "-b:v", "4M"] + flags
                                              + ["-y", path], timeout: 60)
            XCTAssertEqual(made.status, 0, made.stderr)
        }
        // Big enough that, without faststart, moov lies beyond the first 64 KiB read.
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int)
        XCTAssertGreaterThan(size, 2 * 65536)
        let (sender, transport) = try await sender()
        for path in [plain, faststart] {
            let url = try fixture.server.url(forLocalPath: path)
            // The LOAD claims 100 s; the file says 3.5 s.
            let answer = await sender.load(MediaInformation(contentID: url, contentType: "video/mp4", duration: 100),
                                           transport: transport)
            XCTAssertEqual(answer?["type"]?.stringValue, "MEDIA_STATUS", "\(String(describing: answer))")
            let duration = try XCTUnwrap(answer?["status"]?.arrayValue?.first?["media"]?["duration"]?.doubleValue)
            XCTAssertEqual(duration, 3.5, accuracy: 0.05, path)
        }

        // Not an MP4: the LOAD's duration, or the default without one.
        let webm = await sender.load(MediaInformation(contentID: fixture.url("/0/sample.webm"), contentType: "video/webm"),
                                     transport: transport)
        XCTAssertEqual(webm?["status"]?.arrayValue?.first?["media"]?["duration"]?.doubleValue, ReceiverSimulator.Configuration.standardDefaultDuration, "a file without mvhd plays for the default")
    }
}
