import Fleet
import GatewayCore
import XCTest
@testable import Daemon

/// Which MQTT commands wait for the Cast link while it is down.
final class FleetCommandsTests: XCTestCase {
    func testCommandsThatNeedTheReceiverWaitQueriesDoNotAndLocalOnesRunInOrder() async throws {
        let daemon = Daemon(path: "(test)", settings: DaemonSettings(), connector: { _, _ in
            throw GatewayError(.unavailable, "no receiver in this test")
        }, version: "test")
        let commands = FleetCommands(interpreter: daemon.interpreter())
        for line in ["pause", "stop", "checkout", "cast http://media.test/a.mp4", "preset 1", "key KEY_PLAY", "playlist start",
                     "playlist next", "vol 40"] {
            XCTAssertEqual(commands.kind(of: line), .needsReceiver, line)
        }
        for line in ["status", "devices", "version", "keys", "help", "playlist"] {
            XCTAssertEqual(commands.kind(of: line), .query, line)
        }
        for line in ["log debug", "use Kitchen", "playlist reload", "playlist stop", "tv-on", "no such command"] {
            XCTAssertEqual(commands.kind(of: line), .local, line)
        }
    }
}
