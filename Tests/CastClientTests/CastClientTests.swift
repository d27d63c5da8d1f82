import CastClient
import CastProtocol
import ReceiverSimulator
import SystemSupport
import TestSupport
import XCTest

final class CastClientTests: XCTestCase {
    func testConnectsAndFollowsReceiverStatus() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        let state = await harness.state()
        XCTAssertEqual(state.receiver?.volume.level, 0.5)
        XCTAssertNil(state.application, "the idle screen is not followed as an app")
        XCTAssertEqual(harness.sentTypes(on: CastNamespace.connection), ["CONNECT"])
        let connect = harness.sentMessages().first { $0.namespace == CastNamespace.connection }
        XCTAssertEqual(connect?.destinationID, CastEndpoint.platformReceiver)
        XCTAssertTrue(connect?.sourceID.hasPrefix("sender-") ?? false)
        XCTAssertNotEqual(connect?.sourceID, "sender-0", "a per-process sender id, not the platform id")
        XCTAssertEqual(try connect?.jsonPayload()["senderInfo"]?["platform"], 6)
        await harness.client.stop()
    }

    func testLoadLaunchesThenMediaCommandsChangeState() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo()
        var state = await harness.state()
        XCTAssertEqual(state.application?.appID, CastAppID.defaultMediaReceiver)
        XCTAssertEqual(state.media?.media?.metadata?.title, "Test Video")

        try await harness.client.pause()
        state = await harness.state()
        XCTAssertEqual(state.media?.playerState, .paused)
        try await harness.client.togglePlayback()
        state = await harness.state()
        XCTAssertEqual(state.media?.playerState, .playing)

        await harness.clock.advance(by: .seconds(10))
        try await harness.client.seek(by: 30)
        state = await harness.state()
        XCTAssertEqual(state.media?.currentTime ?? 0, 40, accuracy: 0.5, "seek +30 from the extrapolated 10 s")
        try await harness.client.seek(by: 500)
        state = await harness.state()
        XCTAssertEqual(state.media?.currentTime ?? 0, 100, accuracy: 0.01, "clamped to the duration")

        try await harness.client.setPlaybackRate(1.5)
        try await harness.client.setStreamVolume(level: 0.2)
        try await harness.client.stopMedia()
        state = await harness.state()
        XCTAssertEqual(state.media?.playerState, .idle)
        XCTAssertEqual(harness.sentTypes(on: CastNamespace.media).filter { $0 != "GET_STATUS" },
                       ["LOAD", "PAUSE", "PLAY", "SEEK", "SEEK", "SET_PLAYBACK_RATE", "SET_VOLUME", "STOP"])
        XCTAssertEqual(harness.sentTypes(on: CastNamespace.receiver).filter { $0 == "LAUNCH" }.count, 1)
        await harness.client.stop()
    }

    func testTheAppIsConnectedToBeforeItsFirstMediaMessage() async throws {
        // A receiver drops an app's messages from a sender that has not CONNECTed to it.
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo()
        let application = await harness.state().application
        let transportID = try XCTUnwrap(application?.transportID)
        let toApp = harness.sentMessages().filter { $0.destinationID == transportID }
        XCTAssertEqual(toApp.first?.namespace, CastNamespace.connection, "\(toApp.map(\.namespace))")
        XCTAssertEqual(try toApp.first?.jsonPayload()["type"]?.stringValue, "CONNECT")
        XCTAssertEqual(toApp.filter { $0.namespace == CastNamespace.connection }.count, 1, "one virtual connection, not one per request")
        await harness.client.stop()
    }

    func testUnsupportedCommandIsRefusedLocallyAndNotSent() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo()
        if let error = await expectCastError(.unsupportedCommand, { try await harness.client.next() }) {
            XCTAssertTrue(error.message.contains("next"), error.message)
        }
        XCTAssertFalse(harness.sentTypes(on: CastNamespace.media).contains("QUEUE_UPDATE"))
        await harness.client.stop()
    }

    func testQueueNextPreviousAndInsert() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        let items = (1...3).map { QueueItem(media: MediaInformation(contentID: "http://m/\($0).mp4", contentType: "video/mp4",
                                                                   metadata: MediaMetadata(title: "Item \($0)"), duration: 60)) }
        try await harness.client.queueLoad(Array(items.prefix(2)))
        try await harness.client.queueInsert([items[2]])
        try await harness.client.next()
        var state = await harness.state()
        XCTAssertEqual(state.media?.media?.metadata?.title, "Item 2")
        try await harness.client.next()
        try await harness.client.previous()
        state = await harness.state()
        XCTAssertEqual(state.media?.media?.metadata?.title, "Item 2")
        XCTAssertEqual(state.media?.items?.count, 3)
        await harness.client.stop()
    }

    func testSubtitleCyclingAndOff() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo(tracks: [
            MediaTrack(trackID: 1, kind: .text, name: "English"), MediaTrack(trackID: 2, kind: .text, name: "French"),
            MediaTrack(trackID: 3, kind: .audio, name: "Main"),
        ])
        var seen: [[Int]] = []
        for _ in 0..<3 {
            try await harness.client.cycleSubtitles()
            seen.append(await harness.state().media?.activeTrackIDs ?? [-1])
        }
        XCTAssertEqual(seen, [[1], [2], []])
        try await harness.client.cycleAudioTrack()
        try await harness.client.cycleSubtitles()
        let snapshot1 = await harness.state()
        XCTAssertEqual(Set(snapshot1.media?.activeTrackIDs ?? []), [3, 1])
        try await harness.client.subtitlesOff()
        let snapshot2 = await harness.state()
        XCTAssertEqual(snapshot2.media?.activeTrackIDs, [3])
        try await harness.client.setTextTrackStyle(TextTrackStyle(foregroundColor: "#FFFF00FF", fontScale: 1.5))
        let snapshot3 = await harness.state()
        XCTAssertEqual(snapshot3.media?.media?.textTrackStyle?.fontScale, 1.5)
        await harness.client.stop()
    }

    func testVolumeStepsAreClampedAndMuteIsSeparate() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        for _ in 0..<15 { try await harness.client.adjustVolume(by: 0.05) }
        let snapshot4 = await harness.state()
        XCTAssertEqual(snapshot4.receiver?.volume.level ?? 0, 1, accuracy: 0.0001)
        try await harness.client.toggleMute()
        let snapshot5 = await harness.state()
        XCTAssertEqual(snapshot5.receiver?.volume.muted, true)
        let volumes = harness.sentMessages().filter { (try? $0.jsonPayload()["type"]) == "SET_VOLUME" }
            .compactMap { try? $0.jsonPayload()["volume"] }
        XCTAssertEqual(volumes.last, ["muted": true])
        XCTAssertTrue(volumes.dropLast().allSatisfy { $0["muted"] == nil && ($0["level"]?.doubleValue ?? 2) <= 1 })
        await harness.client.stop()
    }

    func testChangesByAnotherSenderAreReflected() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo()
        // A second sender (a phone) joins the same receiver and pauses.
        let (phoneEnd, receiverEnd) = InMemoryByteStream.pair()
        await harness.simulator.serve(receiverEnd)
        let phone = CastClient(configuration: .init(host: "tv.local"), connector: { _, _ in phoneEnd }, timeSource: harness.clock)
        await phone.start()
        let phoneReady = await eventually { await phone.currentState.media != nil }
        XCTAssertTrue(phoneReady)
        try await phone.pause()
        let reflected = await eventually { await harness.state().media?.playerState == .paused }
        XCTAssertTrue(reflected, "the gateway must see the phone's pause from the broadcast")
        try await phone.adjustVolume(by: -0.2)
        let volume = await eventually { abs((await harness.state().receiver?.volume.level ?? 0) - 0.3) < 0.001 }
        XCTAssertTrue(volume)
        await phone.stop()
        await harness.client.stop()
    }

    func testAppStoppedElsewhereIsNoticed() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo()
        _ = await harness.simulator.control("stop-app")
        let gone = await eventually { await harness.state().application == nil }
        XCTAssertTrue(gone)
        let snapshot6 = await harness.state()
        XCTAssertNil(snapshot6.media)
        _ = await expectCastError(.noMediaSession) { try await harness.client.pause() }
        await harness.client.stop()
    }
}
