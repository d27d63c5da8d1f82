import CastClient
import CastProtocol
import Foundation
import GatewayModel
import JSON
import ReceiverSimulator
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import GatewayCore

/// Client state reaches the gateway one way only (the client's published
/// snapshots), and the launch settings have one owner (the gateway's settings)
/// and travel with each request.
final class GatewayStatePathTests: XCTestCase {
    private var log: String!

    override func setUp() {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("state-path-\(UUID().uuidString).jsonl").path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: log)
    }

    private func makeGateway(cast: CastSettings = CastSettings()) async throws -> (Gateway, ReceiverSimulator) {
        var configuration = ReceiverSimulator.Configuration()
        configuration.logPath = log
        let simulator = try ReceiverSimulator(configuration: configuration)
        let gateway = Gateway(settings: GatewaySettings(device: DeviceSettings(target: .address(host: "tv.test", port: 8009)), cast: cast),
                              connector: { _, _ in
                                  let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
                                  await simulator.serve(receiverEnd)
                                  return clientEnd
                              })
        await gateway.start()
        try await gateway.waitUntilConnected(timeout: .seconds(30))
        return (gateway, simulator)
    }

    /// What the receiver was sent, in order (the simulator logs what it receives).
    private func sent() -> [JSONValue] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONValue(parsing: String(line)), let data = entry["data"]?.stringValue else { return nil }
            return try? JSONValue(parsing: data)
        }
    }

    func testTheStateAnActionEndsInIsTheGatewaysWhenItReturnsAndNeverRollsBack() async throws {
        let (gateway, _) = try await makeGateway()
        let seen = Mutex<[Double]>([])
        let watching = Task {
            for await state in gateway.states() {
                if let volume = state.volume { seen.withLock { $0.append(volume) } }
            }
        }
        defer { watching.cancel() }
        for step in 1...40 {
            let level = Double(step) / 100
            try await gateway.perform(.setVolume(level))
            // No waiting: the action returns once the gateway has applied the state it ended in.
            let volume = await gateway.state.volume
            XCTAssertEqual(volume ?? -1, level, accuracy: 0.0001, "step \(step)")
        }
        // From the first step on (before it: the receiver's own level).
        let volumes = Array(seen.withLock { $0 }.drop { abs($0 - 0.01) > 0.0001 })
        XCTAssertEqual(volumes.last ?? -1, 0.40, accuracy: 0.0001)
        XCTAssertEqual(volumes, volumes.sorted(), "a published state went back to an older volume: \(volumes)")
        await gateway.stop()
    }

    func testNewLaunchSettingsApplyFromTheNextLaunchWithoutReconnecting() async throws {
        var cast = CastSettings()
        cast.launchCredentials = LaunchCredentials(credentials: "first-token")
        let (gateway, simulator) = try await makeGateway(cast: cast)
        try await gateway.cast(CastRequest(url: "http://media.test/a.mp4", title: "A"))
        var launches = sent().filter { $0["type"]?.stringValue == "LAUNCH" }
        XCTAssertEqual(launches.last?["appId"]?.stringValue, CastAppID.defaultMediaReceiver)
        XCTAssertEqual(launches.last?["supportedAppTypes"], ["WEB"])
        XCTAssertEqual(launches.last?["credentialsData"], ["credentials": "first-token"])

        var reloaded = await gateway.settings
        reloaded.cast.appID = "ABCD1234"
        reloaded.cast.allowsAndroidReceiver = true
        reloaded.cast.launchCredentials = LaunchCredentials(credentials: "second-token", credentialsType: "android")
        await gateway.apply(reloaded)
        // The media app differs now: the next cast launches the new app with the new credentials.
        try await gateway.cast(CastRequest(url: "http://media.test/b.mp4", title: "B"))
        launches = sent().filter { $0["type"]?.stringValue == "LAUNCH" }
        XCTAssertEqual(launches.count, 2)
        XCTAssertEqual(launches.last?["appId"]?.stringValue, "ABCD1234")
        XCTAssertEqual(launches.last?["supportedAppTypes"], ["WEB", "ANDROID_TV"])
        XCTAssertEqual(launches.last?["credentialsData"], ["credentials": "second-token", "credentialsType": "android"])
        let load = sent().last { $0["type"]?.stringValue == "LOAD" }
        XCTAssertEqual(load?["credentials"]?.stringValue, "second-token", "LOAD carries the launch credentials when no media ones are set")
        let state = await gateway.state
        XCTAssertEqual(state.appID, "ABCD1234")
        let connections = await simulator.connectionCount
        XCTAssertEqual(connections, 1, "the session was kept")
        await gateway.stop()
    }
}
