import Foundation
import Commands
import GatewayCore
import GatewayModel
import Interpreter
import JSON
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// `update URL [SHA256]`, `update latest` and `update`: the gateway's half of
/// an A/B update from the fleet. It validates the request, writes the request
/// file the root helper (deploy/rauc/install-request) acts on, and shows the
/// helper's progress file, which it follows with inotify. The root side is
/// Tests/deploy/bundle.sh's; here its files are written by the test.
final class UpdateFromFleetTests: XCTestCase {
    static let sha = String(repeating: "ab", count: 32)

    func testARequestIsAnHTTPURLWithAnOptionalSHA256() throws {
        let request = try UpdateRequest(url: "https://updates.example/cast-gateway-rpi4-2.1.raucb", sha256: Self.sha.uppercased(), version: "2.1")
        XCTAssertEqual(request.sha256, Self.sha, "kept in lowercase, as sha256sum prints it")
        XCTAssertEqual(request.fileText, "url=https://updates.example/cast-gateway-rpi4-2.1.raucb\nsha256=\(Self.sha)\nversion=2.1\n")
        XCTAssertEqual(try UpdateRequest(url: "http://10.0.0.5:8000/b.raucb").fileText, "url=http://10.0.0.5:8000/b.raucb\n")
        XCTAssertEqual(UpdateRequest.shownURL("https://user:secret@host.example/b.raucb?token=abc"), "https://host.example/b.raucb<...>")
        XCTAssertEqual(UpdateRequest.shownURL("https://host.example/b.raucb"), "https://host.example/b.raucb")
        let refused: [(String, String?, String)] = [
            ("file:///data/b.raucb", nil, "the URL must start with http:// or https:// (not 'file:///data/b.raucb')"),
            ("ftp://host/b.raucb", nil, "the URL must start with http:// or https:// (not 'ftp://host/b.raucb')"),
            ("https://host/a\nb", nil, "the URL must be printable ASCII without spaces (percent-encode the rest)"),
            ("https://host/é", nil, "the URL must be printable ASCII without spaces (percent-encode the rest)"),
            ("https:///b.raucb", nil, "the URL has no host"),
            ("https://host/b.raucb", "abc", "the SHA-256 must be 64 hex digits (sha256sum prints it), not 'abc'"),
            ("https://host/b.raucb", String(repeating: "g", count: 64),
             "the SHA-256 must be 64 hex digits (sha256sum prints it), not 'gggggggggggggggggggggggggggggggggggggggg'"),
            ("https://host/" + String(repeating: "x", count: 2048), nil, "the URL is longer than 2048 bytes"),
        ]
        for (url, sha, reason) in refused {
            XCTAssertThrowsError(try UpdateRequest(url: url, sha256: sha), url) { XCTAssertEqual("\($0)", reason, url) }
        }
    }

    func testTheCommandParsesAndRefusesBadInputWithItsUsage() throws {
        XCTAssertEqual(try GatewayCommand(parsing: "update"), .update(.show))
        XCTAssertEqual(try GatewayCommand(parsing: "update latest"), .update(.latest))
        XCTAssertEqual(try GatewayCommand(parsing: "update https://h/b.raucb \(Self.sha)"),
                       .update(.install(try UpdateRequest(url: "https://h/b.raucb", sha256: Self.sha))))
        XCTAssertEqual(try GatewayCommand(parsing: "UPDATE http://h/b.raucb"), .update(.install(try UpdateRequest(url: "http://h/b.raucb"))))
        XCTAssertTrue(GatewayCommand.update(.show).isReadOnly)
        XCTAssertFalse(GatewayCommand.update(.latest).isReadOnly)
        XCTAssertFalse(GatewayCommand.update(.latest).needsReceiver, "an update does not wait for the Chromecast")
        let usage = "usage: update | update latest | update http(s)://HOST/BUNDLE.raucb [SHA256]"
        let refused: [(String, String)] = [
            ("update file:///x.raucb", "update refused: the URL must start with http:// or https:// (not 'file:///x.raucb'); \(usage)"),
            ("update https://h/b.raucb 1234", "update refused: the SHA-256 must be 64 hex digits (sha256sum prints it), not '1234'; \(usage)"),
            ("update https://h/b.raucb \(Self.sha) extra", usage),
        ]
        for (line, reason) in refused {
            XCTAssertThrowsError(try GatewayCommand(parsing: line), line) { XCTAssertEqual("\($0)", reason, line) }
        }
    }

    func testTheHelpersProgressIsReadAndShown() throws {
        let progress = try UpdateProgress(parsing: "state=downloading\npercent=40\nversion=2.1\nmessage=from https://h/b.raucb\ntime=2026-12-02T08:00:00Z\nnew-key=1\n")
        XCTAssertEqual(progress, UpdateProgress(phase: .downloading, percent: 40, version: "2.1", message: "from https://h/b.raucb",
                                                time: "2026-12-02T08:00:00Z"))
        XCTAssertEqual(progress.summary, "downloading 2.1: 40% (from https://h/b.raucb)")
        XCTAssertTrue(progress.isActive)
        XCTAssertNil(progress.problem)
        XCTAssertEqual(progress.json.serialized,
                       #"{"state":"downloading","percent":40,"version":"2.1","message":"from https://h/b.raucb","time":"2026-12-02T08:00:00Z"}"#)
        let failed = try UpdateProgress(parsing: "state=failed\nmessage=the download's SHA-256 is 00, not 11\u{1B}[2J\n")
        XCTAssertEqual(failed.problem, "the update failed: the download's SHA-256 is 00, not 11 [2J")
        XCTAssertFalse(failed.isActive)
        XCTAssertEqual(try UpdateProgress(parsing: "state=installed\npercent=100\nversion=2.1\nmessage=rebooting into it\n").summary,
                       "installed 2.1: rebooting into it")
        XCTAssertThrowsError(try UpdateProgress(parsing: "state=exploded\n")) {
            XCTAssertEqual("\($0)", "state=exploded is not one of requested, downloading, verifying, installing, installed, failed")
        }
        XCTAssertThrowsError(try UpdateProgress(parsing: "percent=3\n")) { XCTAssertEqual("\($0)", "it has no state= line") }
    }

    /// A daemon with `[update]` pointing into a temporary directory.
    private func makeDaemon(_ directory: String, fromFleet: String) throws -> Daemon {
        let config = directory + "/gateway.conf"
        try """
            [device]
            host = 127.0.0.1:1
            [update]
            from-fleet = \(fromFleet)
            request = \(directory)/update-request
            progress = \(directory)/progress/progress
            """.write(toFile: config, atomically: true, encoding: .utf8)
        return Daemon(path: config, settings: try DaemonSettings.load(path: config), connector: { _, _ in
            throw GatewayError(.unavailable, "no receiver in this test")
        }, version: "2.0")
    }

    private func temporaryDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "cast-gateway-fleet-update-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory + "/progress", withIntermediateDirectories: true)
        return directory
    }

    func testUpdateWritesTheRequestAndFollowsTheHelpersProgress() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try makeDaemon(directory, fromFleet: "yes")
        let interpreter = daemon.interpreter()
        let follower = RunningService(UpdateProgressService(path: directory + "/progress/progress", gateway: daemon.gateway))
        defer { follower.cancel() }

        let reply = await interpreter.execute(try GatewayCommand(parsing: "update https://u:p@h.example/b.raucb?t=1 \(Self.sha)"))
        XCTAssertEqual(reply.textLines, ["ok: update from https://h.example/b.raucb<...> requested; the box installs it and reboots ('update' shows how it goes)"])
        XCTAssertEqual(try String(contentsOfFile: directory + "/update-request", encoding: .utf8),
                       "url=https://u:p@h.example/b.raucb?t=1\nsha256=\(Self.sha)\n")
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/update-request")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        var state = await daemon.gateway.state
        XCTAssertEqual(state.updateProgress, UpdateProgress(phase: .requested))

        // Not taken yet (no helper ran): a new request replaces it.
        let replaced = await interpreter.execute(try GatewayCommand(parsing: "update https://h.example/b2.raucb"))
        XCTAssertTrue(replaced.succeededEntirely, "\(replaced.textLines)")
        XCTAssertEqual(try String(contentsOfFile: directory + "/update-request", encoding: .utf8), "url=https://h.example/b2.raucb\n")

        // The helper's progress, replaced by rename as install-request does.
        func helperWrites(_ text: String) throws {
            try text.write(toFile: directory + "/progress/progress.tmp", atomically: false, encoding: .utf8)
            XCTAssertEqual(rename(directory + "/progress/progress.tmp", directory + "/progress/progress"), 0)
        }
        try FileManager.default.removeItem(atPath: directory + "/update-request")   // the helper took it
        try helperWrites("state=downloading\npercent=40\nversion=2.1\n")
        let downloading = await eventually { await daemon.gateway.state.updateProgress?.percent == 40 }
        XCTAssertTrue(downloading, "the progress file's change reached the state")
        // While one runs, another is refused and nothing is written.
        let again = await interpreter.execute(try GatewayCommand(parsing: "update https://h.example/c.raucb"))
        XCTAssertFalse(again.succeededEntirely)
        XCTAssertEqual(again.textLines, ["error: an update is already under way (downloading 2.1: 40%); wait for it to end"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/update-request"))
        let unchanged = await daemon.gateway.state
        XCTAssertEqual(unchanged.updateProgress?.percent, 40, "the state is as it was")
        let status = await interpreter.run("status")
        XCTAssertTrue(status.contains("  updating: downloading 2.1: 40%"), "\(status)")
        let shown = await interpreter.run("update")
        XCTAssertEqual(shown, ["installed: 2.0", "now: downloading 2.1: 40%"])

        try helperWrites("state=failed\nversion=2.1\nmessage=the download's SHA-256 is 00, not ab\n")
        let failed = await eventually { await daemon.gateway.state.updateProgress?.phase == .failed }
        XCTAssertTrue(failed)
        state = await daemon.gateway.state
        XCTAssertEqual(state.updateProgress?.problem, "the update 2.1 failed: the download's SHA-256 is 00, not ab")
        // After a failure a new request is taken.
        let retry = await interpreter.execute(try GatewayCommand(parsing: "update http://h.example/c.raucb"))
        XCTAssertTrue(retry.succeededEntirely, "\(retry.textLines)")
        XCTAssertEqual(try String(contentsOfFile: directory + "/update-request", encoding: .utf8), "url=http://h.example/c.raucb\n")
        await follower.stop()
    }

    func testUpdateLatestInstallsTheFleetsAnnouncement() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try makeDaemon(directory, fromFleet: "yes")
        let interpreter = daemon.interpreter()
        let none = await interpreter.execute(.update(.latest))
        XCTAssertEqual(none.textLines, ["error: no update is announced to the fleet (the retained <prefix>/all/update topic is empty); use update URL [SHA256]"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/update-request"))

        await daemon.gateway.setUpdateOffer(try UpdateRequest(url: "https://h.example/2.0.raucb", sha256: Self.sha, version: "2.0"))
        let same = await interpreter.execute(.update(.latest))
        XCTAssertEqual(same.textLines, ["ok: already on 2.0; nothing to install"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/update-request"))

        await daemon.gateway.setUpdateOffer(try UpdateRequest(url: "https://h.example/2.1.raucb", sha256: Self.sha, version: "2.1"))
        let shown = await interpreter.run("update")
        XCTAssertEqual(shown, ["installed: 2.0", "announced: 2.1 at https://h.example/2.1.raucb"])
        let reply = await interpreter.execute(.update(.latest))
        XCTAssertEqual(reply.textLines, ["ok: update 2.1 from https://h.example/2.1.raucb requested; the box installs it and reboots ('update' shows how it goes)"])
        XCTAssertEqual(try String(contentsOfFile: directory + "/update-request", encoding: .utf8),
                       "url=https://h.example/2.1.raucb\nsha256=\(Self.sha)\nversion=2.1\n")
    }

    func testABoxWithoutABUpdatesSaysSo() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try makeDaemon(directory, fromFleet: "no")
        let reply = await daemon.interpreter().execute(try GatewayCommand(parsing: "update https://h.example/b.raucb"))
        XCTAssertFalse(reply.succeededEntirely)
        XCTAssertEqual(reply.textLines, ["error: this box has no A/B updates ([update] from-fleet = no); update it over ssh with deploy/install"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/update-request"))
        let state = await daemon.gateway.state
        XCTAssertNil(state.updateProgress, "the state is as it was")
        // A front end without an updater (one-shot tools) says so too.
        let bare = CommandInterpreter(gateway: daemon.gateway, version: "2.0")
        let refused = await bare.execute(.update(.install(try UpdateRequest(url: "https://h.example/b.raucb"))))
        XCTAssertEqual(refused.textLines, ["error: updates are not available here: run the command on the gateway's console, MQTT or web interface"])
    }

    func testTheUpdateSectionIsChecked() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/gateway.conf"
        try "[update]\nfrom-fleet = maybe\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try DaemonSettings.load(path: config)) {
            XCTAssertEqual("\($0)", "\(config):2: [update] from-fleet: must be auto, yes or no, got 'maybe'")
        }
        try "[update]\nrequest = relative/file\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try DaemonSettings.load(path: config)) {
            XCTAssertEqual("\($0)", "\(config):2: [update] request: must be an absolute file path, got 'relative/file'")
        }
        try "[update]\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(try DaemonSettings.load(path: config).update, UpdateSettings())
    }

    /// The version the daemon reports: the image's (or last bundle's) release file, not the binary's base version.
    func testTheInstalledReleaseNamesTheBuild() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = UpdateSettings()
        settings.release = directory + "/release"
        XCTAssertNil(settings.installedRelease(), "no file: the binary's version is used")
        try "VERSION=0.1.0+git12.ab12cd3\n".write(toFile: settings.release, atomically: true, encoding: .utf8)
        XCTAssertEqual(settings.installedRelease(), "0.1.0+git12.ab12cd3")
        try "NAME=x\nVERSION=\"2.1\"\n".write(toFile: settings.release, atomically: true, encoding: .utf8)
        XCTAssertEqual(settings.installedRelease(), "2.1")
        try "VERSION=2.1 \u{1B}[2J\n".write(toFile: settings.release, atomically: true, encoding: .utf8)
        XCTAssertNil(settings.installedRelease(), "not a version: not shown")
    }
}
