import CastProtocol
import Foundation
import GatewayCore
import ReceiverSimulator
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// `[media]` in the daemon: a local path cast from the console is served by
/// the media server on the address the receiver reaches it by, with its
/// sidecar subtitles; a path outside the roots is refused.
final class MediaDaemonTests: XCTestCase {
    func testALocalFileIsServedToTheReceiverAndAPathOutsideTheRootsIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("media-daemon-\(UUID().uuidString)")
        let media = directory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let film = Data((0..<4096).map { UInt8($0 % 251) })
        try film.write(to: media.appendingPathComponent("film.mp4"))
        try "WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n".write(to: media.appendingPathComponent("film.en.vtt"), atomically: true, encoding: .utf8)
        try "secret".write(to: directory.appendingPathComponent("outside.mp4"), atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("gateway.conf").path
        // The device's address is what the server routes toward: loopback here.
        try "[device]\nhost = 127.0.0.1\n[console]\ndevice = none\n[media]\nroots = \(media.path)\nport = 0\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("receiver.jsonl").path
        let inProcess = try InProcessDaemon.start(config: config, simulatorLog: log)
        let (daemon, group, running) = (inProcess.daemon, inProcess.group, inProcess.task)
        defer { group.shutdown() }
        let connected = await eventually { await daemon.gateway.state.link == .connected }
        XCTAssertTrue(connected)

        let interpreter = daemon.interpreter()
        let refused = await interpreter.run("cast \(directory.appendingPathComponent("outside.mp4").path)")
        XCTAssertTrue(refused.first?.hasPrefix("error: cannot serve") ?? false, "\(refused)")
        // The server listens once the receiver's address is known: retry until it does.
        var reply: [String] = []
        let served = await eventually {
            reply = await interpreter.run("cast \(media.appendingPathComponent("film.mp4").path) Film")
            return reply == ["ok"]
        }
        XCTAssertTrue(served, "\(reply)")
        let load = InProcessDaemon.payloads(in: log).last { $0["type"]?.stringValue == "LOAD" }
        let url = try XCTUnwrap(load?["media"]?["contentId"]?.stringValue)
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/film.mp4"), url)
        XCTAssertEqual(load?["media"]?["contentType"]?.stringValue, "video/mp4")
        let track = load?["media"]?["tracks"]?.arrayValue?.first
        XCTAssertEqual(track?["language"]?.stringValue, "en")
        XCTAssertTrue(track?["trackContentId"]?.stringValue?.hasSuffix("/film.en.vtt") ?? false, "\(String(describing: track))")
        // A real HTTP client fetches exactly the file's bytes, and a range of them.
        let body = try curl([url])
        XCTAssertEqual(body, film)
        let range = try curl(["-H", "Range: bytes=10-19", url])
        XCTAssertEqual(range, film[10..<20])
        group.shutdown()
        let stoppedInTime = await running.value
        XCTAssertTrue(stoppedInTime, "every service stops within the group's deadline")
    }

    private func curl(_ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--silent", "--show-error", "--fail", "--max-time", "10"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "curl \(arguments)")
        return data
    }
}
