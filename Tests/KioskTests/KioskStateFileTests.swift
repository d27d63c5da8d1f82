import CastProtocol
import Foundation
import JSON
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import Kiosk

/// The kiosk's state file is untrusted input: not a file, or a position that lies.
final class KioskStateFileTests: XCTestCase {
    private let lobby = "http://media.test/lobby.mp4"

    func testAFIFOAtTheStatePathIsRefusedWithoutBlockingTheStartOrTheStop() async throws {
        let log = LogCapture()
        defer { log.stop() }
        let harness = try await KioskHarness(defaultDuration: 60)
        let settings = try harness.settings(playlist: [lobby])
        try FileManager.default.createDirectory(atPath: settings.stateDirectory, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(settings.statePath, 0o600), 0, "mkfifo: \(errno)")
        // A reader blocked on the FIFO is let go by an open for writing, then EOF (so a failure does not hang the run).
        func releaseReader() {
            let fd = open(settings.statePath, O_RDWR | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }
        harness.startPlayer(settings)
        await harness.waitUntilPlaying(lobby)
        XCTAssertEqual(harness.loadedURLs, [lobby])
        let refused = log.matching("not a regular file", level: .warning)
        XCTAssertEqual(refused.count, 1, "\(log.matching("kiosk-state"))")
        XCTAssertTrue(refused.first?.contains(settings.statePath) ?? false, "where: \(refused)")
        XCTAssertTrue(refused.first?.contains("FIFO") ?? false, "what: \(refused)")
        XCTAssertTrue(refused.first?.contains("remove it") ?? false, "what to do: \(refused)")
        // SIGTERM (the service cancelled) stops the player promptly.
        let stopped = Mutex(false)
        let stop = Task {
            await harness.stopPlayer()
            stopped.withLock { $0 = true }
        }
        let stoppedInTime = await eventually { stopped.withLock { $0 } }
        XCTAssertTrue(stoppedInTime, "the player stops")
        releaseReader()
        await stop.value
        await harness.shutDown()
    }

    /// The LOAD that resumes `state` (written by hand, as anyone able to write the file may).
    private func resumeLoad(savedState: String, playlist: [String]) async throws -> JSONValue? {
        let harness = try await KioskHarness(defaultDuration: 60)
        let settings = try harness.settings(playlist: playlist)
        try FileManager.default.createDirectory(atPath: settings.stateDirectory, withIntermediateDirectories: true)
        try savedState.write(toFile: settings.statePath, atomically: true, encoding: .utf8)
        harness.startPlayer(settings)
        let loaded = await eventually { !harness.loadedURLs.isEmpty }
        XCTAssertTrue(loaded)
        var load = harness.received("LOAD").first?.objectValue
        load?["requestId"] = nil
        load?["sessionId"] = nil  // the receiver's session, random
        await harness.shutDown()
        return load.map(JSONValue.object)
    }

    private func expectedLoad(currentTime: String, title: String = "lobby.mp4") -> String {
        #"{"type":"LOAD","media":{"contentId":"http://media.test/lobby.mp4","contentUrl":"http://media.test/lobby.mp4","streamType":"BUFFERED","#
            + #""contentType":"video/mp4","metadata":{"metadataType":0,"title":""# + title + #""}},"autoplay":true,"currentTime":"#
            + currentTime + #","activeTrackIds":[]}"#
    }

    func testASavedPositionIsClampedToTheItemsLengthOrADayAndNonsenseStartsAtZero() async throws {
        // No known length: at most a day.
        let unknown = try await resumeLoad(savedState: #"{"version":1,"item":0,"source":"http://media.test/lobby.mp4","position":999999999}"#,
                                           playlist: [lobby])
        XCTAssertEqual(unknown?.serialized, expectedLoad(currentTime: "86400"))
        // The length the receiver reported, saved with the position.
        let known = try await resumeLoad(
            savedState: #"{"version":1,"item":0,"source":"http://media.test/lobby.mp4","position":999999999,"duration":125.5}"#, playlist: [lobby])
        XCTAssertEqual(known?.serialized, expectedLoad(currentTime: "125.5"))
        // The length the playlist gives (#EXTINF).
        let listed = try await resumeLoad(savedState: #"{"version":1,"item":0,"source":"http://media.test/lobby.mp4","position":999999999}"#,
                                          playlist: ["#EXTINF:95,Lobby", lobby])
        XCTAssertEqual(listed?.serialized, expectedLoad(currentTime: "95", title: "Lobby"))
        // A negative position starts from the beginning.
        let negative = try await resumeLoad(savedState: #"{"version":1,"item":0,"source":"http://media.test/lobby.mp4","position":-40}"#,
                                            playlist: [lobby])
        XCTAssertEqual(negative?.serialized, expectedLoad(currentTime: "0"))
    }

    func testADirectoryAtTheStatePathAndPositionsThatAreNotPositionsAreRefused() throws {
        let directory = NSTemporaryDirectory() + "kiosk-state-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/kiosk-state.json", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        XCTAssertNil(KioskStateStore(path: directory + "/kiosk-state.json").load(), "a directory is not a state")
        for (text, expected) in [("-0.5", 0.0), ("\"12\"", 0), ("12.5", 12.5), ("86401", 86_400)] {
            var note: String?
            let json = try JSONValue(parsing: #"{"version":1,"item":0,"source":"http://media.test/lobby.mp4","position":"# + text + "}")
            let state = KioskSavedState(json: json, note: &note)
            XCTAssertEqual(state?.position, expected, text)
            XCTAssertEqual(note == nil, expected == 12.5, "\(text): \(note ?? "no note")")
        }
    }

    func testAFIFOAsThePlaylistIsRefusedAtOnceAndAMissingOneSaysSo() async throws {
        let directory = NSTemporaryDirectory() + "kiosk-fifo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fifo = directory + "/lobby.m3u"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0, "mkfifo: \(errno)")
        let outcome = Mutex<String?>(nil)
        // Off the cooperative pool: a reader that blocks must not stall the test's own tasks.
        Thread.detachNewThread {
            let text: String
            do {
                _ = try Playlist.load(.playlist(fifo))
                text = "loaded"
            } catch {
                text = "\(error)"
            }
            outcome.withLock { $0 = text }
        }
        let answered = await eventually { outcome.withLock { $0 } != nil }
        if !answered {  // lets a blocked reader go (open for writing, then EOF), so the run does not hang
            let fd = open(fifo, O_RDWR | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }
        XCTAssertTrue(answered, "Playlist.load returns at once")
        let message = outcome.withLock { $0 } ?? ""
        XCTAssertTrue(message.hasPrefix("\(fifo): cannot read the playlist: it is a FIFO (named pipe), not a regular file; remove it"), message)
        XCTAssertThrowsError(try Playlist.load(.playlist(directory + "/missing.m3u"))) { error in
            XCTAssertTrue("\(error)".contains("missing.m3u: cannot read the playlist: it does not exist"), "\(error)")
        }
    }
}
