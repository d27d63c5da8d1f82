import Commands
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
                     "playlist next", "playlist play 2", "vol 40"] {
            XCTAssertEqual(commands.kind(of: line), .needsReceiver, line)
        }
        for line in ["status", "devices", "version", "keys", "help", "playlist"] {
            XCTAssertEqual(commands.kind(of: line), .query, line)
        }
        for line in ["log debug", "use Kitchen", "playlist reload", "playlist stop", "tv-on", "no such command"] {
            XCTAssertEqual(commands.kind(of: line), .local, line)
        }
    }

    /// MQTT's `ok` is false when any part failed (as when it scanned every line for `error:`); the lines are the console's.
    func testTheReplyIsRenderedFromTheTypedResult() async {
        XCTAssertEqual(FleetCommands.reply(.success(CommandReply())), FleetReply(ok: true, lines: ["ok"]))
        XCTAssertEqual(FleetCommands.reply(.failure(CommandError(.unavailable, "no device to control"))),
                       FleetReply(ok: false, lines: ["error: no device to control"]))
        XCTAssertEqual(FleetCommands.reply(.success(CommandReply(["ok: checkout: done"], problems: ["could not set the volume"]))),
                       FleetReply(ok: false, lines: ["ok: checkout: done", "error: could not set the volume"]))
        let daemon = Daemon(path: "(test)", settings: DaemonSettings(), connector: { _, _ in
            throw GatewayError(.unavailable, "no receiver in this test")
        }, version: "test")
        let commands = FleetCommands(interpreter: daemon.interpreter())
        let unknown = await commands.prepare("frobnicate").start()()
        XCTAssertEqual(unknown, FleetReply(ok: false, lines: ["error: unknown command 'frobnicate' (try 'help')"]))
        let version = await commands.prepare(" version ").start()()
        XCTAssertEqual(version, FleetReply(ok: true, lines: ["cast-gateway test"]))
    }
}
