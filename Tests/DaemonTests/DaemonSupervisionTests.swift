import Foundation
import GatewayCore
import ReceiverSimulator
import ServiceLifecycle
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// Every one of the daemon's real services, made to fail once while it runs,
/// is reported with its name, restarted by the group and works again; and a
/// service that hangs on stop is named at the deadline.
final class DaemonSupervisionTests: XCTestCase {
    /// Runs the real service, fails it once after it came up (cancelling it, as
    /// a crash of its part would end it), then runs it again as it is.
    private final class FailsOnce: Service, Sendable {
        let inner: any Service
        let runs = Mutex(0)
        init(_ inner: any Service) { self.inner = inner }
        var name: String { inner.name }
        var signalsRunning: Bool { inner.signalsRunning }
        var restartsAfterFailure: Bool { inner.restartsAfterFailure }
        struct Injected: Error, CustomStringConvertible { var description: String { "injected failure" } }

        func run() async throws {
            let run = runs.withLock { $0 += 1; return $0 }
            guard run == 1 else { return try await inner.run() }
            let inner = self.inner
            await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await inner.run() }
                for _ in 0..<100 { await Task.yield() }  // let it come up; how far it got does not matter
                group.cancelAll()
                while (try? await group.next()) != nil {}
            }
            throw Injected()
        }
    }

    func testEveryServiceIsRestartedAfterAFailureAndReportedWithItsName() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("supervision-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("gateway.conf").path
        try "[device]\nhost = tv.test\n[console]\ndevice = none\n".write(toFile: config, atomically: true, encoding: .utf8)
        let simulator = try ReceiverSimulator()
        let daemon = Daemon(path: config, settings: try DaemonSettings.load(path: config), connector: { _, _ in
            let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
            await simulator.serve(receiverEnd)
            return clientEnd
        }, version: "test")
        let services = daemon.services(discovery: nil, reloadSignals: []).map(FailsOnce.init)
        let reported = Mutex<[String: [String?]]>([:])
        let report = daemon.serviceFailureReporter
        let group = ServiceGroup(services: services, restartBackoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(20)),
                                 healthyAfter: .milliseconds(300)) { service, failure in
            reported.withLock { $0[service, default: []].append(failure) }
            await report(service, failure)
        }
        let running = Task { await group.run() }
        let names = services.map(\.name)
        // Each failed once, was reported by name, ran again and recovered; the
        // remote control, whose input stream is single-use, stays stopped and says so.
        let restartable = services.filter { $0.restartsAfterFailure }
        XCTAssertEqual(services.filter { !$0.restartsAfterFailure }.map(\.name), ["remote"])
        let recovered = await eventually {
            restartable.allSatisfy { $0.runs.withLock { $0 } >= 2 }
                && reported.withLock { reports in
                    restartable.allSatisfy { reports[$0.name] == ["\($0.name) failed: injected failure; restarting", nil] }
                        && reports["remote"] == ["remote failed: injected failure; stopped"]
                }
        }
        XCTAssertTrue(recovered, "\(reported.withLock { $0 }) runs: \(services.map { "\($0.name)=\($0.runs.withLock { $0 })" })")
        XCTAssertEqual(Set(names), ["leds", "session", "remote", "lirc", "evdev", "cec", "console", "mqtt", "media", "kiosk", "web",
                                    "update", "status", "reload", "notifier"])
        let cleared = await eventually { await daemon.gateway.state.serviceFailures.keys.sorted() == ["remote"] }
        XCTAssertTrue(cleared)
        // Restarted, the session works: the gateway connects and casts.
        let connected = await eventually { await daemon.gateway.state.link == .connected }
        XCTAssertTrue(connected, "the gateway did not connect again after its session service was restarted")
        let cast = await daemon.interpreter().run("cast http://media.test/a.mp4 Film")
        XCTAssertEqual(cast, ["ok"])
        group.shutdown()
        let stoppedInTime = await running.value
        XCTAssertTrue(stoppedInTime, "every real service stops within the deadline after a restart")
    }
}
