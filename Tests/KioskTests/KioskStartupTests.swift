import CastClient
import CastProtocol
import Foundation
import GatewayCore
import GatewayModel
import ReceiverSimulator
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import Kiosk

/// What the kiosk finds on the receiver when it starts: a guest's film or app,
/// or its own item without a saved state.
final class KioskStartupTests: XCTestCase {
    private let lobby = "http://media.test/lobby.mp4", two = "http://media.test/two.mp4"
    private let guestVideo = "http://phone.test/guest-film.mp4"

    // MARK: A guest found at start

    /// The daemon starts while a guest's film plays: the receiver's status and
    /// the film's media status arrive one after the other, each `replyDelay`
    /// behind the request, on the manual clock. Whatever the order of the
    /// kiosk's start, the connection and the media status, the kiosk sends no LOAD.
    private func assertGuestIsRespectedAtStart(guestApp: String, replyDelay: Duration,
                                               file: StaticString = #filePath, line: UInt = #line) async throws {
        let harness = try await KioskHarness(defaultDuration: 3600, connect: false)
        let phone = await harness.phone(appID: guestApp)
        if guestApp == CastAppID.defaultMediaReceiver {
            try await phone.load(CastRequest(url: guestVideo, title: "Guest video").loadRequest)
            let playing = await eventually { await phone.currentState.media?.playerState == .playing }
            XCTAssertTrue(playing, "the guest's film plays", file: file, line: line)
        } else {
            try await phone.launch()
            let launched = await eventually { await phone.currentState.application?.appID == guestApp }
            XCTAssertTrue(launched, "the guest's app runs", file: file, line: line)
        }
        let loadsBefore = harness.received("LOAD").count
        var faults = SimulatorFaults()
        faults.replyDelay = replyDelay
        await harness.simulator.setFaults(faults)

        let settings = try harness.settings(playlist: ["#EXTINF:-1,Lobby", lobby])
        harness.startPlayer(settings)
        await harness.gateway.start()
        // Step by step, noting when the receiver's status and then the media status became known.
        var connectedAt: Duration?, mediaKnownAt: Duration?
        let start = harness.clock.now
        for _ in 0..<40 {
            await harness.advance(seconds: 1)
            let state = await harness.gateway.state
            if connectedAt == nil, state.link == .connected { connectedAt = harness.clock.now - start }
            if mediaKnownAt == nil, state.link == .connected, state.mediaKnown { mediaKnownAt = harness.clock.now - start }
        }
        let order = "connected after \(connectedAt?.seconds ?? -1) s, media known after \(mediaKnownAt?.seconds ?? -1) s"
        XCTAssertNotNil(mediaKnownAt, order, file: file, line: line)
        if let connectedAt, let mediaKnownAt {
            XCTAssertLessThan(connectedAt, mediaKnownAt, "the media status came after the receiver's: \(order)", file: file, line: line)
        }
        XCTAssertEqual(harness.received("LOAD").count, loadsBefore, "no LOAD over the guest (\(order)): \(harness.loadedURLs)", file: file, line: line)
        let status = await harness.player?.status() ?? []
        XCTAssertTrue(status.contains { $0.hasPrefix("now: a guest has the screen") }, "\(status) (\(order))", file: file, line: line)
        let shown = await harness.gateway.state
        XCTAssertEqual(shown.appID, guestApp, file: file, line: line)
        if guestApp == CastAppID.defaultMediaReceiver {
            XCTAssertEqual(shown.contentID, guestVideo, file: file, line: line)
            XCTAssertEqual(shown.player, .playing, file: file, line: line)
        }

        // The guest stops casting: the kiosk takes the screen back.
        await harness.simulator.setFaults(SimulatorFaults())
        try await phone.stopApplication()
        await harness.advance(seconds: 2)
        await harness.waitUntilPlaying(lobby, file: file, line: line)
        await phone.stop()
        await harness.shutDown()
    }

    func testAGuestsFilmInTheDefaultMediaReceiverIsRespectedWhenItsStatusComesAfterTheWindowOpens() async throws {
        // Connected after about 4 s, the film's status after about 8 s: the first look ends before it.
        try await assertGuestIsRespectedAtStart(guestApp: CastAppID.defaultMediaReceiver, replyDelay: .seconds(2))
    }

    func testAGuestsFilmInTheDefaultMediaReceiverIsRespectedWhenTheLinkComesUpLate() async throws {
        // Connected after about 8 s (discovery, TLS on a slow board), the film's status after about 16 s.
        try await assertGuestIsRespectedAtStart(guestApp: CastAppID.defaultMediaReceiver, replyDelay: .seconds(4))
    }

    /// The snapshots a start may see, in the order that lost: the receiver's
    /// status alone, then "media status read" without its media (the client
    /// marks it read, then stores it; a snapshot can fall in between), then all.
    /// Fed to the player one by one, so the interleaving is exact.
    func testEachSnapshotOfAGuestsFilmArrivingInTurnNeverLetsTheKioskLoadOverIt() async throws {
        let harness = try await KioskHarness(defaultDuration: 3600)
        let phone = await harness.phone()
        try await phone.load(CastRequest(url: guestVideo, title: "Guest video").loadRequest)
        await harness.waitUntilPlaying(guestVideo)
        let full = await harness.gateway.state
        var receiverOnly = full
        receiverOnly.mediaKnown = false
        receiverOnly.player = .idle
        (receiverOnly.contentID, receiverOnly.mediaSessionID, receiverOnly.title, receiverOnly.position, receiverOnly.duration) = (nil, nil, nil, nil, nil)
        var readButEmpty = receiverOnly
        readButEmpty.mediaKnown = true

        let settings = try harness.settings(playlist: ["#EXTINF:-1,Lobby", lobby])
        // The player alone, without its loop over the gateway's snapshots: the test hands them over.
        let player = KioskPlayer(settings: settings, gateway: harness.gateway, wallClock: harness.wallClock, generator: SeededGenerator(seed: 1))
        await player.start()
        for (step, snapshot) in [("receiver status", receiverOnly), ("media read, not stored", readButEmpty), ("media", full)] {
            await player.handle(snapshot)
            XCTAssertEqual(harness.loadedURLs, [guestVideo], "after the \(step): no LOAD")
        }
        let status = await player.status()
        XCTAssertTrue(status.contains { $0.hasPrefix("now: a guest has the screen (Default Media Receiver)") }, "\(status)")
        await player.handle(full)
        XCTAssertEqual(harness.loadedURLs, [guestVideo])
        await player.finish()
        await phone.stop()
        await harness.shutDown()
    }

    func testAGuestsOwnAppIsRespectedAtStart() async throws {
        try await assertGuestIsRespectedAtStart(guestApp: "ABCDEF12", replyDelay: .seconds(4))
    }

    // MARK: Its own item without a saved state

    func testWithoutASavedStateTheKioskKnowsItsOwnSecondItemAndResumesItAndReportsTheFailedSaveOnce() async throws {
        let log = LogCapture()
        defer { log.stop() }
        let harness = try await KioskHarness(defaultDuration: 30)
        // The state directory cannot be created: a regular file stands where its parent should be.
        let blocker = harness.directory + "/blocker"
        XCTAssertTrue(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))
        let settings = try harness.settings(playlist: [lobby, two]) { $0.stateDirectory = blocker + "/state" }
        harness.startPlayer(settings)
        await harness.waitUntilPlaying(lobby)
        await harness.advance(seconds: 31)
        await harness.waitUntilPlaying(two)
        await harness.advance(seconds: 12)  // saves at the start of each item and every 5 s
        let failedSaves = log.matching("cannot save the kiosk's position", level: .warning)
        XCTAssertEqual(failedSaves.count, 1, "reported once: \(failedSaves)")
        XCTAssertTrue(failedSaves.first?.contains(blocker + "/state/kiosk-state.json") ?? false, "\(failedSaves)")
        XCTAssertTrue(failedSaves.first?.contains("state-directory") ?? false, "what to do: \(failedSaves)")
        XCTAssertNil(KioskStateStore(path: settings.statePath).load())
        let shown = await harness.player?.status() ?? []
        XCTAssertTrue(shown.contains { $0.hasPrefix("problem: cannot save the kiosk's position to \(blocker)/state/kiosk-state.json") }, "\(shown)")

        // kill -9 (a watchdog restart): item 2 plays on the TV, nothing was saved.
        await harness.stopPlayer(saving: false)
        let positionBefore = await harness.gateway.state.position(at: harness.clock.now.seconds) ?? 0
        harness.startPlayer(settings)
        let resumed = await eventually { harness.loadedURLs.count == 3 }
        XCTAssertTrue(resumed, "\(harness.loadedURLs)")
        XCTAssertEqual(harness.loadedURLs, [lobby, two, two], "item 2 is the kiosk's: resumed, not taken for a guest's")
        XCTAssertEqual(harness.received("LOAD").last?["currentTime"]?.doubleValue ?? -1, positionBefore, accuracy: 1.5,
                       "where the receiver had got to")
        XCTAssertEqual(log.matching("a guest").count, 0, "\(log.matching("a guest"))")
        let status = await harness.player?.status() ?? []
        XCTAssertTrue(status.contains { $0.hasPrefix("now: playing item 2/2") }, "\(status)")
        await harness.shutDown()
    }

    func testTheKiosksOwnItemReadLateIsResumedNotLeftToAGuestTimeout() async throws {
        // The kiosk's item 2 plays in the Default Media Receiver (cast by its previous run, here by another
        // sender); the link comes up late and the media status later than the first look allows.
        let harness = try await KioskHarness(defaultDuration: 600, connect: false)
        let previousRun = await harness.phone()
        try await previousRun.load(CastRequest(url: two).loadRequest)
        let playing = await eventually { await previousRun.currentState.media?.playerState == .playing }
        XCTAssertTrue(playing)
        var faults = SimulatorFaults()
        faults.replyDelay = .seconds(4)
        await harness.simulator.setFaults(faults)
        let settings = try harness.settings(playlist: [lobby, two])
        harness.startPlayer(settings)
        await harness.gateway.start()
        for _ in 0..<14 { await harness.advance(seconds: 1) }
        let first = await harness.player?.status() ?? []
        XCTAssertTrue(first.contains { $0.hasPrefix("now: a guest has the screen") }, "not known yet: left alone \(first)")
        XCTAssertEqual(harness.loadedURLs, [two])
        // The media status arrives: it is the kiosk's own item, which it takes back at once, where it had got to.
        var resumed = false
        for _ in 0..<20 where !resumed {
            await harness.advance(seconds: 1)
            resumed = harness.loadedURLs.count == 2
        }
        XCTAssertEqual(harness.loadedURLs, [two, two])
        XCTAssertGreaterThan(harness.received("LOAD").last?["currentTime"]?.doubleValue ?? 0, 10, "resumed where it was, not from 0")
        await harness.simulator.setFaults(SimulatorFaults())
        await harness.advance(seconds: 5)
        let status = await harness.player?.status() ?? []
        XCTAssertTrue(status.contains { $0.hasPrefix("now: playing item 2/2") }, "\(status)")
        await previousRun.stop()
        await harness.shutDown()
    }
}
