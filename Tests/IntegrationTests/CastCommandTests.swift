import CastProtocol
import Foundation
import JSON
import XCTest

/// `cast-gateway cast` / `control` against `cast-receiver-sim` over real TLS.
final class CastCommandTests: XCTestCase {
    /// The received LAUNCH must be exactly this JSON (with its own request id).
    private func assertLaunch(_ simulator: SimulatorProcess, equals expected: (Int) -> String,
                              file: StaticString = #filePath, line: UInt = #line) throws {
        let launches = simulator.payloads(ofType: "LAUNCH")
        XCTAssertEqual(launches.count, 1, "\(launches)", file: file, line: line)
        let text = try XCTUnwrap(launches.first, file: file, line: line)
        let requestID = try XCTUnwrap(try JSONValue(parsing: text)["requestId"]?.intValue, file: file, line: line)
        XCTAssertEqual(text, expected(requestID), file: file, line: line)
    }

    func testCastLaunchesWebReceiverAndLoads() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let result = try runGateway(["cast", "http://media.test/bbb.mp4", "--device", simulator.device, "--title", "Big Buck Bunny"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(result.output.contains(#"ok: playing "Big Buck Bunny""#), result.output)
        try assertLaunch(simulator) {
            #"{"type":"LAUNCH","requestId":\#($0),"appId":"CC1AD845","language":"en-US","supportedAppTypes":["WEB"]}"#
        }
        let load = try JSONValue(parsing: try XCTUnwrap(simulator.payloads(ofType: "LOAD").first))
        XCTAssertEqual(load["media"]?["contentId"], "http://media.test/bbb.mp4")
        XCTAssertEqual(load["media"]?["contentType"], "video/mp4")
        XCTAssertEqual(load["media"]?["metadata"]?["title"], "Big Buck Bunny")
        XCTAssertEqual(load["autoplay"], true)
        let connects = simulator.received().filter { $0.namespace == CastNamespace.connection }
        XCTAssertEqual(connects.first?.destination, "receiver-0")
        XCTAssertTrue(connects.dropFirst().contains { $0.destination != "receiver-0" }, "CONNECT to the app's transport id")
    }

    func testCastConnectLaunchWithAndroidReceiverAndCredentialsNeverLogsTheSecret() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let secret = "acct-secret-7f3a"
        let result = try runGateway(["cast", "http://media.test/show.mp4", "--device", simulator.device, "--app-id", "ABCD1234",
                                     "--android-receiver", "--credentials", secret, "--credentials-type", "android",
                                     "--log-level", "trace"])
        XCTAssertEqual(result.status, 0, result.output)
        try assertLaunch(simulator) {
            #"{"type":"LAUNCH","requestId":\#($0),"appId":"ABCD1234","language":"en-US","supportedAppTypes":["WEB","ANDROID_TV"],"credentialsData":{"credentials":"acct-secret-7f3a","credentialsType":"android"}}"#
        }
        XCTAssertTrue(result.output.contains("LAUNCH"), "trace logging shows the messages")
        XCTAssertTrue(result.output.contains("<redacted>"))
        XCTAssertFalse(result.output.contains(secret), "the credentials leaked into the output")
    }

    func testCastWithSubtitlesLoadsATextTrack() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let result = try runGateway(["cast", "http://media.test/film.mkv", "--device", simulator.device,
                                     "--subtitles", "http://media.test/film.en.vtt", "--content-type", "video/webm"])
        XCTAssertEqual(result.status, 0, result.output)
        let load = try JSONValue(parsing: try XCTUnwrap(simulator.payloads(ofType: "LOAD").first))
        XCTAssertEqual(load["media"]?["contentType"], "video/webm")
        XCTAssertEqual(load["media"]?["tracks"], [[
            "trackId": 1, "type": "TEXT", "subtype": "SUBTITLES", "trackContentId": "http://media.test/film.en.vtt",
            "trackContentType": "text/vtt", "name": "Subtitles", "language": "en",
        ]])
        XCTAssertEqual(load["activeTrackIds"], [1])
        XCTAssertNotNil(load["media"]?["textTrackStyle"]?["edgeType"])
    }

    func testEveryControlCommandReachesTheReceiverWithoutRelaunching() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        XCTAssertEqual(try runGateway(["cast", "http://media.test/a.mp4", "--device", simulator.device]).status, 0)
        let commands: [([String], String)] = [
            (["pause"], "PAUSE"), (["play"], "PLAY"), (["toggle"], "PAUSE"), (["toggle"], "PLAY"), (["seek", "120"], "SEEK"),
            (["seek", "+10"], "SEEK"), (["seek", "1:00"], "SEEK"), (["volume", "30"], "SET_VOLUME"), (["volume", "+5"], "SET_VOLUME"),
            (["mute"], "SET_VOLUME"), (["stop"], "STOP"),
        ]
        for (arguments, _) in commands {
            let result = try runGateway(["control"] + arguments + ["--device", simulator.device])
            XCTAssertEqual(result.status, 0, "control \(arguments): \(result.output)")
        }
        XCTAssertEqual(simulator.mediaCommands(), ["LOAD", "PAUSE", "PLAY", "PAUSE", "PLAY", "SEEK", "SEEK", "SEEK", "STOP"])
        let seeks = simulator.payloads(ofType: "SEEK").compactMap { try? JSONValue(parsing: $0)["currentTime"]?.doubleValue }
        guard seeks.count == 3 else { return XCTFail("expected 3 SEEKs, got \(seeks)") }
        XCTAssertEqual(seeks[0], 120)
        XCTAssertEqual(seeks[1], 130, accuracy: 2, "relative seek from the extrapolated position")
        XCTAssertEqual(seeks[2], 60)
        let volumes = simulator.payloads(ofType: "SET_VOLUME").compactMap { try? JSONValue(parsing: $0)["volume"] }
        guard volumes.count == 3 else { return XCTFail("expected 3 SET_VOLUMEs, got \(volumes)") }
        XCTAssertEqual(volumes[0], ["level": 0.3])
        XCTAssertEqual(volumes[1]["level"]?.doubleValue ?? 0, 0.35, accuracy: 0.0001)
        XCTAssertEqual(volumes[2], ["muted": true])
        XCTAssertEqual(simulator.payloads(ofType: "LAUNCH").count, 1, "each control joins the running app")
        XCTAssertTrue(simulator.control("status")?.contains("volume=35%") ?? false)
    }

    func testUnsupportedCommandIsRefusedLocally() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        XCTAssertEqual(try runGateway(["cast", "http://media.test/a.mp4", "--device", simulator.device]).status, 0)
        let result = try runGateway(["control", "next", "--device", simulator.device])
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.output.contains("does not support next"), result.output)
        XCTAssertFalse(simulator.mediaCommands().contains("QUEUE_UPDATE"))
    }

    func testLaunchErrorsAreSurfacedAndCancelledIsRetried() throws {
        let directory = try temporaryDirectory(self)
        let refusing = try SimulatorProcess(directory: directory, extraArguments: ["--launch-error", "NOT_FOUND"])
        defer { refusing.stop() }
        let refused = try runGateway(["cast", "http://media.test/a.mp4", "--device", refusing.device])
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.output.contains("NOT_FOUND"), refused.output)
        XCTAssertTrue(refused.output.contains("app-id"), "the message says what to check: \(refused.output)")

        let flaky = try SimulatorProcess(directory: directory, logName: "flaky.jsonl", extraArguments: ["--launch-error", "CANCELLED:1"])
        defer { flaky.stop() }
        let retried = try runGateway(["cast", "http://media.test/a.mp4", "--device", flaky.device])
        XCTAssertEqual(retried.status, 0, retried.output)
        XCTAssertEqual(flaky.payloads(ofType: "LAUNCH").count, 2)
    }

    func testFramesWrittenByteByByteAndSlowRepliesWork() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory, extraArguments: ["--byte-by-byte", "--delay-ms", "300"])
        defer { simulator.stop() }
        let result = try runGateway(["cast", "http://media.test/a.mp4", "--device", simulator.device])
        XCTAssertEqual(result.status, 0, result.output)
    }

    func testUnreachableDeviceExits69AndUsageErrorsExit64() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let freePort = Int(UInt16(bigEndian: address.sin_port))
        close(listener)  // nothing listens there now

        let unreachable = try runGateway(["control", "play", "--device", "127.0.0.1:\(freePort)"])
        XCTAssertEqual(unreachable.status, 69, unreachable.output)
        XCTAssertTrue(unreachable.output.contains("unavailable"), unreachable.output)
        XCTAssertEqual(try runGateway(["control", "dance", "--device", "127.0.0.1:1"]).status, 64)
        XCTAssertEqual(try runGateway(["frobnicate"]).status, 64)
        XCTAssertEqual(try runGateway(["cast", "--device", "127.0.0.1:1"]).status, 64)
        XCTAssertEqual(try runGateway(["--version"]).output, "cast-gateway 0.1.0")
    }

    func testCheckConfig() throws {
        let directory = try temporaryDirectory(self)
        let good = directory.appendingPathComponent("good.conf")
        try "[device]\nhost = 10.0.0.2\n[cast]\nandroid-receiver = true\n".write(to: good, atomically: true, encoding: .utf8)
        let ok = try runGateway(["check-config", good.path])
        XCTAssertEqual(ok.status, 0, ok.output)
        XCTAssertTrue(ok.output.contains("device: 10.0.0.2:8009"), ok.output)
        let bad = directory.appendingPathComponent("bad.conf")
        try "[device]\nhost = 10.0.0.2\n\n[cast]\napp-idd = X\n".write(to: bad, atomically: true, encoding: .utf8)
        let failed = try runGateway(["check-config", bad.path])
        XCTAssertEqual(failed.status, 78)
        XCTAssertTrue(failed.output.contains("\(bad.path):5: [cast] app-idd: unknown key"), failed.output)
        let daemon = try runGateway(["run", "--config", bad.path])
        XCTAssertEqual(daemon.status, 78)
        XCTAssertTrue(daemon.output.contains(":5: [cast] app-idd"), daemon.output)
    }

    func testCredentialsFromAFileReachLaunchAndLoadAndNeverTheCommandLine() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let launchFile = directory.appendingPathComponent("launch-secret").path
        let mediaFile = directory.appendingPathComponent("media-secret").path
        try "launch-s3cret\n".write(toFile: launchFile, atomically: true, encoding: .utf8)
        try "media-s3cret\n".write(toFile: mediaFile, atomically: true, encoding: .utf8)
        let result = try runGateway(["cast", "http://media.test/a.mp4", "--device", simulator.device, "--android-receiver",
                                     "--credentials-file", launchFile, "--credentials-type", "android",
                                     "--media-credentials-file=\(mediaFile)", "--log-level", "trace"])
        XCTAssertEqual(result.status, 0, result.output)
        let launch = try JSONValue(parsing: try XCTUnwrap(simulator.payloads(ofType: "LAUNCH").first))
        XCTAssertEqual(launch["credentialsData"]?["credentials"], "launch-s3cret")
        XCTAssertEqual(launch["credentialsData"]?["credentialsType"], "android")
        let load = try JSONValue(parsing: try XCTUnwrap(simulator.payloads(ofType: "LOAD").first))
        XCTAssertEqual(load["credentials"], "media-s3cret", "LOAD carries the media credentials")
        XCTAssertFalse(result.output.contains("s3cret"), "secrets in the output: \(result.output)")
    }

    func testAbsurdArgumentsAreUsageErrorsBeforeAnyConnection() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let longURL = "http://media.test/" + String(repeating: "a", count: 100_000) + ".mp4"
        let long = try runGateway(["cast", longURL, "--device", simulator.device])
        XCTAssertEqual(long.status, 64, long.output)
        XCTAssertTrue(long.output.contains("a Cast message carries at most 65536 bytes"), long.output)
        for arguments in [["control", "seek", "1e300"], ["control", "seek", "+1e300"], ["control", "seek"], ["control", "volume", "1e300"]] {
            let result = try runGateway(arguments + ["--device", simulator.device])
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.output)")
        }
        let unknown = try runGateway(["cast", "http://media.test/a.mp4", "--device", simulator.device, "--credentail=hunter2"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.output.contains("unknown option --credentail"), unknown.output)
        XCTAssertFalse(unknown.output.contains("hunter2"), unknown.output)
        XCTAssertTrue(simulator.received().isEmpty, "nothing may reach the receiver: \(simulator.received())")
    }
}
