import CastClient
import CastProtocol
import ReceiverSimulator
import SystemSupport
import TestSupport
import XCTest

/// Issue 9 §6: a LOAD without a duration. A real receiver reads the duration
/// from the file, so BUFFERED media can be seeked; the simulator assumes one
/// (600 s, or `--default-duration`). LIVE streams stay unseekable.
final class SimulatorSeekTests: XCTestCase {
    private func load(_ harness: ClientHarness, streamType: MediaInformation.StreamType) async throws {
        let media = MediaInformation(contentID: "http://media.test/no-duration.mp4", contentType: "video/mp4",
                                     streamType: streamType, metadata: MediaMetadata(title: "No duration"))
        try await harness.client.load(LoadRequest(media: media))
        let playing = await eventually { await harness.client.currentState.media?.playerState == .playing }
        XCTAssertTrue(playing, "media did not start")
    }

    func testBufferedMediaWithoutDurationAssumesSixHundredSecondsAndSeeks() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await load(harness, streamType: .buffered)
        var state = await harness.state()
        XCTAssertEqual(state.media?.media?.duration, 600)
        XCTAssertTrue(state.media?.supportedCommands.contains(.seek) ?? false)
        try await harness.client.seek(to: 12)
        state = await harness.state()
        XCTAssertEqual(state.media?.currentTime ?? 0, 12, accuracy: 0.01)
        XCTAssertEqual(harness.sentTypes(on: CastNamespace.media).filter { $0 == "SEEK" }.count, 1)
        await harness.client.stop()
    }

    func testDefaultDurationIsConfigurable() async throws {
        let harness = try ClientHarness(configureSimulator: { $0.defaultDuration = 30 })
        await harness.startConnected()
        try await load(harness, streamType: .buffered)
        var state = await harness.state()
        XCTAssertEqual(state.media?.media?.duration, 30)
        try await harness.client.seek(to: 20)
        state = await harness.state()
        XCTAssertEqual(state.media?.currentTime ?? 0, 20, accuracy: 0.01)
        // The assumed duration ends the item like a real one.
        await harness.clock.advance(by: .seconds(11), step: .seconds(1))
        let finished = await eventually { await harness.client.currentState.media?.playerState == .idle }
        XCTAssertTrue(finished, "the item did not end at the assumed duration")
        await harness.client.stop()
    }

    func testLiveStreamStaysUnseekable() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await load(harness, streamType: .live)
        let state = await harness.state()
        XCTAssertNil(state.media?.media?.duration)
        XCTAssertFalse(state.media?.supportedCommands.contains(.seek) ?? true)
        do {
            try await harness.client.seek(to: 12)
            XCTFail("a live stream was seeked")
        } catch let error as CastError {
            XCTAssertEqual(error.code, .unsupportedCommand)
        }
        XCTAssertFalse(harness.sentTypes(on: CastNamespace.media).contains("SEEK"))
        await harness.client.stop()
    }
}
