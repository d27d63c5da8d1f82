import CastClient
import CastProtocol
import Foundation
import GatewayCore
import GatewayModel
import JSON
import ReceiverSimulator
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import Kiosk

/// Local time of day that moves with the manual clock: set 22:59, advance 60 s, it is 23:00.
final class ManualWallClock: WallClock {
    private let clock: ManualTimeSource
    private let anchor: Mutex<(origin: Duration, start: Int)>

    init(clock: ManualTimeSource, hour: Int, minute: Int) {
        self.clock = clock
        anchor = Mutex((clock.now, hour * 3600 + minute * 60))
    }

    /// Jumps the time of day (as the night passing, or a clock set by NTP).
    func set(hour: Int, minute: Int, second: Int = 0) {
        let now = clock.now
        anchor.withLock { $0 = (now, hour * 3600 + minute * 60 + second) }
    }

    var secondOfDay: Int {
        let (origin, start) = anchor.withLock { $0 }
        return (start + Int((clock.now - origin).seconds)) % Schedule.secondsPerDay
    }
}

/// A kiosk player against the real simulator over in-memory streams, all on one manual clock.
final class KioskHarness: @unchecked Sendable {
    let clock = ManualTimeSource()
    let simulator: ReceiverSimulator
    let gateway: Gateway
    let directory: String
    let logPath: String
    var wallClock: any WallClock
    private(set) var player: KioskPlayer?
    private var task: Task<Void, Never>?

    /// `connect: false` leaves the gateway unstarted (`connectGateway()`), as when the daemon starts.
    init(defaultDuration: Double = 20, cast: CastSettings = CastSettings(), connect: Bool = true) async throws {
        directory = NSTemporaryDirectory() + "kiosk-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        logPath = directory + "/receiver.jsonl"
        var configuration = ReceiverSimulator.Configuration(logPath: logPath, defaultDuration: defaultDuration)
        configuration.pingInterval = .seconds(5)
        let simulator = try ReceiverSimulator(configuration: configuration, timeSource: clock)
        self.simulator = simulator
        gateway = Gateway(settings: GatewaySettings(device: DeviceSettings(target: .address(host: "tv.test", port: 8009)), cast: cast),
                          connector: KioskHarness.connector(to: simulator), timeSource: clock)
        wallClock = ManualWallClock(clock: clock, hour: 12, minute: 0)
        if connect {
            await gateway.start()
            let connected = await eventually { await self.gateway.state.link == .connected }
            XCTAssertTrue(connected, "the gateway connects to the simulator")
        }
    }

    static func connector(to simulator: ReceiverSimulator) -> CastClient.Connector {
        { _, _ in
            let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
            await simulator.serve(receiverEnd)
            return clientEnd
        }
    }

    /// Writes `lines` as the playlist and returns settings that play it.
    func settings(playlist lines: [String], _ adjust: (inout KioskSettings) -> Void = { _ in }) throws -> KioskSettings {
        let path = directory + "/lobby.m3u"
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        var settings = KioskSettings()
        settings.isEnabled = true
        settings.source = .playlist(path)
        settings.stateDirectory = directory + "/state"
        adjust(&settings)
        return settings
    }

    @discardableResult
    func startPlayer(_ settings: KioskSettings, locator: any MediaLocator = LocalFilesUnavailable()) -> KioskPlayer {
        let player = KioskPlayer(settings: settings, gateway: gateway, locator: locator, wallClock: wallClock,
                                 generator: SeededGenerator(seed: 1))
        self.player = player
        task = Task { await player.run() }
        return player
    }

    /// A graceful stop (saves), or with `saving: false` the player is dropped as by `kill -9`.
    func stopPlayer(saving: Bool = true) async {
        if !saving { await player?.dropWithoutSaving() }
        task?.cancel()
        await task?.value
        task = nil
        player = nil
    }

    func shutDown() async {
        await stopPlayer()
        await gateway.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The payloads the receiver got, of `type`, in order.
    func received(_ type: String) -> [JSONValue] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONValue(parsing: String(line)), let data = entry["data"]?.stringValue,
                  let payload = try? JSONValue(parsing: data), payload["type"]?.stringValue == type else { return nil }
            return payload
        }
    }

    var loadedURLs: [String] { received("LOAD").compactMap { $0["media"]?["contentId"]?.stringValue } }

    /// Waits (real time, bounded) until the receiver plays `url`.
    func waitUntilPlaying(_ url: String, file: StaticString = #filePath, line: UInt = #line) async {
        let playing = await eventually { let state = await self.gateway.state; return state.contentID == url && state.player == .playing }
        let state = await gateway.state
        XCTAssertTrue(playing, "expected \(url) playing, the receiver shows \(state.contentID ?? "nothing") \(state.player)", file: file, line: line)
    }

    /// Advances the manual clock in one-second steps.
    func advance(seconds: Int) async {
        await clock.advance(by: .seconds(seconds), step: .seconds(1))
    }

    /// A second sender: the guest's phone.
    func phone(appID: String = CastAppID.defaultMediaReceiver) async -> GuestPhone {
        let phone = CastClient(configuration: CastClient.Configuration(host: "tv.test"),
                               connector: KioskHarness.connector(to: simulator), timeSource: clock)
        await phone.start()
        _ = await eventually { await phone.currentState.phase == .connected }
        return GuestPhone(client: phone, app: LaunchSettings(appID: appID))
    }
}

/// Captures the log lines of one test.
final class LogCapture: Sendable {
    let lines = Mutex<[(LogLevel, String)]>([])
    private let previousLevel: LogLevel

    init() {
        previousLevel = Logger.level
        Logger.level = .debug
        Logger.setSink { [self] level, text in self.lines.withLock { $0.append((level, text)) } }
    }

    func stop() {
        Logger.setSink(nil)
        Logger.level = previousLevel
    }

    func matching(_ text: String, level: LogLevel? = nil) -> [String] {
        lines.withLock { $0.filter { ($0.0 == level || level == nil) && $0.1.contains(text) }.map(\.1) }
    }
}
