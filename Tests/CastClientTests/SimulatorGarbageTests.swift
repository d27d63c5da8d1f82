import CastClient
import ReceiverSimulator
import TestSupport
import XCTest

/// The simulator's `garbage` control command (used by Tests/faults/run.sh):
/// malformed frames a sender skips, and a frame header that loses the framing.
final class SimulatorGarbageTests: XCTestCase {
    func testGarbageFramesAreSkippedAndAnOversizedHeaderDropsTheLink() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()

        let skipped = await harness.simulator.control("garbage frames")
        XCTAssertEqual(skipped, "ok sent to 1")
        try await harness.client.setVolume(level: 0.25)  // answered after the garbage: the link survived
        let afterFrames = await harness.state()
        XCTAssertEqual(afterFrames.phase, .connected, "malformed frames must not drop the link")
        XCTAssertEqual(harness.shared.connections.withLock { $0.count }, 1)

        let oversized = await harness.simulator.control("garbage oversized")
        XCTAssertEqual(oversized, "ok sent to 1")
        let dropped = await harness.waitUntilReconnecting()
        XCTAssertTrue(dropped, "a 2 GiB frame header must drop the link")
        let afterOversized = await harness.state()
        XCTAssertEqual(afterOversized.lastError?.code, .protocolError)
        await harness.clock.advance(by: .seconds(1))
        let back = await eventually { await harness.state().phase == .connected }
        XCTAssertTrue(back)
        await harness.client.stop()
    }

    func testGarbageNeedsAKind() async throws {
        let harness = try ClientHarness()
        let answer = await harness.simulator.control("garbage lots")
        XCTAssertEqual(answer, "error usage: garbage frames|oversized")
        let frames = SimulatorFaults.Garbage.frames.bytes
        XCTAssertEqual(Array(frames.prefix(4)), [0, 0, 0, 5], "starts with a frame whose body is not a CastMessage")
        XCTAssertEqual(Array(SimulatorFaults.Garbage.oversized.bytes.prefix(4)), [0x7F, 0xFF, 0xFF, 0xFF])
    }
}
