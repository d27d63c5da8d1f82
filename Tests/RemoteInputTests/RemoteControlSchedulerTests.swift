import Commands
import GatewayModel
import Synchronization
import TestSupport
import XCTest
@testable import RemoteInput

/// The remote control and the scheduler it feeds.
final class RemoteControlSchedulerTests: XCTestCase {
    /// The remote control stops its scheduler when it is stopped (the daemon's shutdown).
    func testStoppingTheRemoteControlStopsItsScheduler() async {
        let clock = ManualTimeSource()
        let scheduler = ActionScheduler(timeSource: clock) { _ in }
        let (events, _) = AsyncStream.makeStream(of: InputEvent.self)
        let remote = RemoteControl(keymaps: [:], scheduler: scheduler, events: events) { _, _ in }
        let running = Task { try await remote.run() }
        running.cancel()
        _ = try? await running.value
        let stopped = await scheduler.stopped
        XCTAssertTrue(stopped, "the scheduler still takes actions after the remote control stopped")
    }

    /// The remote sees every key, so it keeps the recent ones (for `keys`): the last 20, with their actions.
    func testTheRemoteKeepsTheLastTwentyKeysWithTheirActions() async {
        let scheduler = ActionScheduler(timeSource: ManualTimeSource()) { _ in }
        let keymap = Keymap(source: .lirc, bindings: ["KEY_PLAY": .play])
        let remote = RemoteControl(keymaps: [.lirc: keymap], scheduler: scheduler)
        XCTAssertTrue(remote.recentKeys.isEmpty)
        await remote.handle(InputEvent(source: .lirc, key: "KEY_PLAY"))
        await remote.handle(InputEvent(source: .lirc, key: "KEY_NOPE"))
        XCTAssertEqual(remote.recentKeys.map { "\($0.event.description) -> \($0.action?.name ?? "(not mapped)")" },
                       ["lirc KEY_PLAY -> play", "lirc KEY_NOPE -> (not mapped)"])
        for index in 0..<25 { await remote.handle(InputEvent(source: .lirc, key: "KEY_\(index)")) }
        XCTAssertEqual(remote.recentKeys.count, RemoteControl.recentLimit)
        XCTAssertEqual(remote.recentKeys.first?.event.key, "KEY_5", "the oldest are dropped first")
        XCTAssertEqual(remote.recentKeys.last?.event.key, "KEY_24")
        await scheduler.stop()
    }
}
