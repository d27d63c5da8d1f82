import CastProtocol
import Synchronization
import TestSupport
import XCTest
@testable import CastClient

/// Every state the client publishes is whole: a status is applied in one
/// snapshot, so no consumer (the kiosk's guest check, LEDs, MQTT) sees a new
/// app with the old app's media, or "media known" before the media itself.
final class CastClientSnapshotTests: XCTestCase {
    func testANewAppNeverShowsWithTheOldAppsMediaAndKnownMediaComesWithItsStatus() async throws {
        let harness = try ClientHarness()
        let snapshots = Mutex<[CastClientState]>([])
        await harness.client.observeSnapshots { state in snapshots.withLock { $0.append(state) } }
        await harness.startConnected()
        try await harness.loadVideo()
        try await harness.client.launch(LaunchSettings(appID: "ABCD1234"))
        let switched = await eventually { await harness.state().application?.appID == "ABCD1234" }
        XCTAssertTrue(switched)
        let all = snapshots.withLock { $0 }
        var previousTransport: String?
        for (index, state) in all.enumerated() {
            let transport = state.application?.transportID
            if transport != previousTransport {
                XCTAssertFalse(state.mediaKnown, "snapshot \(index): a new app with the old app's media status: \(state)")
                XCTAssertNil(state.media, "snapshot \(index): a new app with the old app's media: \(state)")
            }
            previousTransport = transport
        }
        // The video's status arrived as one snapshot: known and playing together.
        let firstKnownWithMedia = all.firstIndex { $0.mediaKnown && $0.media != nil }
        XCTAssertNotNil(firstKnownWithMedia)
        await harness.client.stop()
    }

    func testAMediaStatusIsOneSnapshot() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo()
        let count = Mutex(0)
        await harness.client.observeSnapshots { _ in count.withLock { $0 += 1 } }
        _ = await harness.simulator.control("pause")
        let paused = await eventually { await harness.state().media?.playerState == .paused }
        XCTAssertTrue(paused)
        XCTAssertEqual(count.withLock { $0 }, 1, "one media status, one snapshot")
        await harness.client.stop()
    }

    /// A lost link is one snapshot: no app and "waiting to reconnect" together.
    /// "Connected without the app" would read as the app having been stopped.
    func testALostLinkNeverShowsAsConnectedWithoutTheApp() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo()
        let snapshots = Mutex<[CastClientState]>([])
        await harness.client.observeSnapshots { state in snapshots.withLock { $0.append(state) } }
        _ = await harness.simulator.control("drop")
        let waiting = await harness.waitUntilReconnecting()
        XCTAssertTrue(waiting)
        for (index, state) in snapshots.withLock({ $0 }).enumerated() where state.phase == .connected {
            XCTAssertNotNil(state.application, "snapshot \(index) says connected with no app while the receiver runs one: \(state)")
        }
        await harness.client.stop()
    }
}
