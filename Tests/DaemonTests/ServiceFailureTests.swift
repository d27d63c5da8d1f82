import Foundation
import GatewayCore
import GatewayModel
import ServiceLifecycle
import StatusOutput
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// A service of the daemon that fails is shown while the failure lasts: in
/// `status`, as error code 8 on the LED, in the state MQTT publishes.
final class ServiceFailureTests: XCTestCase {
    /// Fails its first run, then runs until stopped.
    private final class FailsOnce: Service, Sendable {
        let name = "media"
        let runs = Mutex(0)
        struct Failure: Error, CustomStringConvertible { var description: String { "port 8080 is in use" } }

        func run() async throws {
            if runs.withLock({ $0 += 1; return $0 }) == 1 { throw Failure() }
            await waitUntilCancelled()
        }
    }

    func testAFailedServiceIsShownUntilItRecovers() async throws {
        let daemon = Daemon(path: "(test)", settings: DaemonSettings(), connector: { _, _ in
            throw SystemError("no receiver in this test", errno: 111)
        }, version: "test")
        let clock = ManualTimeSource()
        let service = FailsOnce()
        let group = ServiceGroup(services: [service], timeSource: clock,
                                 restartBackoff: Backoff(initial: .seconds(1), maximum: .seconds(1), jitter: 0),
                                 healthyAfter: .seconds(10), onFailure: daemon.serviceFailureReporter)
        let running = Task { await group.run() }
        let shown = await eventually { await daemon.gateway.state.serviceFailures["media"] != nil }
        XCTAssertTrue(shown)
        let state = await daemon.gateway.state
        XCTAssertEqual(state.serviceFailures, ["media": "media failed: port 8080 is in use; restarting"])
        let status = await daemon.interpreter().run("status")
        XCTAssertTrue(status.contains("  media failed: port 8080 is in use; restarting"), "\(status)")
        XCTAssertEqual(LEDPattern.patterns(for: state, starting: false, inputMissing: false)[.error], .flashCode(8))
        // Restarted after the backoff; recovered once it has run for 10 s.
        await clock.advance(by: .seconds(1))
        let restarted = await eventually { service.runs.withLock { $0 } == 2 && clock.sleeperCount == 1 }
        XCTAssertTrue(restarted)
        await clock.advance(by: .seconds(10))
        let cleared = await eventually { await daemon.gateway.state.serviceFailures.isEmpty }
        XCTAssertTrue(cleared)
        let after = await daemon.gateway.state
        XCTAssertEqual(LEDPattern.patterns(for: after, starting: false, inputMissing: false)[.error], .off)
        group.shutdown()
        _ = await running.value
    }
}
