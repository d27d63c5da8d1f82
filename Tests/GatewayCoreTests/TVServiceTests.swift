import CastClient
import ReceiverSimulator
import GatewayModel
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import GatewayCore

/// A TV that records what it was told.
private final class RecordingTV: TVControl {
    let commands = Mutex<[String]>([])
    func powerOnTV(selecting physicalAddress: UInt16?) { commands.withLock { $0.append("on \(physicalAddress.map { String($0, radix: 16) } ?? "-")") } }
    func standbyTV() { commands.withLock { $0.append("standby") } }
    func selectInput(_ physicalAddress: UInt16) { commands.withLock { $0.append("input \(String(physicalAddress, radix: 16))") } }
    func send(_ message: TVBusMessage) { commands.withLock { $0.append("send \(message.body)") } }
    var powerCommands: [String] { commands.withLock { $0 }.filter { !$0.hasPrefix("send") } }
}

final class TVServiceTests: XCTestCase {
    private func makeGateway(_ simulator: ReceiverSimulator, clock: ManualTimeSource) -> Gateway {
        Gateway(settings: GatewaySettings(device: DeviceSettings(target: .address(host: "tv.test", port: 8009))),
                connector: { _, _ in
                    let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
                    await simulator.serve(receiverEnd)
                    return clientEnd
                }, timeSource: clock)
    }

    func testPowersOnWhenCastingStartsAndStandsByOnceAfterIdleOnTheManualClock() async throws {
        let clock = ManualTimeSource()
        let simulator = try ReceiverSimulator()
        let gateway = makeGateway(simulator, clock: clock)
        await gateway.start()
        // The receiver's status read (its volume known): a cast after this is one that starts.
        let connected = await eventually { await gateway.state.link == .connected }
        let statusRead = await eventually { await gateway.state.volume != nil }
        XCTAssertTrue(connected && statusRead)
        let tv = RecordingTV()
        let (bus, _) = AsyncStream.makeStream(of: TVBusEvent.self)
        let machine = TVService(gateway: gateway, configuration: TVMachineConfiguration(power: .init(powerOnWhenCasting: true, input: 0x2000,
                                                                                                     standbyAfter: .seconds(600))),
                                device: tv, busEvents: bus)
        let service = RunningService(machine)
        // Shown once the machine follows the gateway's states.
        let published = await eventually { await gateway.state.tv != nil }
        XCTAssertTrue(published, "the TV's status is shown while the machine runs")
        try await gateway.cast(CastRequest(url: "http://media.test/a.mp4"))
        let poweredOn = await eventually { tv.powerCommands == ["on 2000"] }
        XCTAssertTrue(poweredOn, "\(tv.powerCommands)")
        try await gateway.perform(.stopApp)
        let idle = await eventually { await gateway.state.appID == nil && clock.sleeperCount >= 1 }
        XCTAssertTrue(idle)
        await clock.advance(by: .seconds(599), step: .seconds(1))
        XCTAssertEqual(tv.powerCommands, ["on 2000"], "no standby before the idle time")
        // The machine saw the idle state a little after the test did, under load: a few more seconds at most.
        for _ in 0..<30 where tv.powerCommands.count < 2 {
            await clock.advance(by: .seconds(1))
            _ = await eventually(timeout: .milliseconds(100)) { tv.powerCommands.count == 2 }
        }
        let standby = await eventually { tv.powerCommands == ["on 2000", "standby"] }
        XCTAssertTrue(standby, "\(tv.powerCommands)")
        await clock.advance(by: .seconds(1200), step: .seconds(60))
        XCTAssertEqual(tv.powerCommands.filter { $0 == "standby" }.count, 1, "standby is sent once")
        await service.stop()
        let withdrawn = await eventually { await gateway.state.tv == nil }
        XCTAssertTrue(withdrawn)
        await gateway.stop()
    }

    func testTheTVsStandbyPausesTheReceiverAndTheGatewaysOwnCommandsDoNot() async throws {
        let clock = ManualTimeSource()
        let simulator = try ReceiverSimulator()
        let gateway = makeGateway(simulator, clock: clock)
        await gateway.start()
        let tv = RecordingTV()
        let (bus, busSink) = AsyncStream.makeStream(of: TVBusEvent.self)
        let machine = TVService(gateway: gateway, configuration: TVMachineConfiguration(power: .init(input: 0x2000)), device: tv, busEvents: bus)
        await gateway.setTVControl(machine.control)
        let service = RunningService(machine)
        busSink.yield(.opened(physicalAddress: 0x1000, logicalAddress: 4))
        let connected = await eventually { await gateway.state.link == .connected }
        XCTAssertTrue(connected)
        try await gateway.cast(CastRequest(url: "http://media.test/a.mp4"))
        let playing = await eventually { await gateway.state.player == .playing }
        XCTAssertTrue(playing)

        // `tv standby` from the console: the TV's confirmation does not pause.
        try await gateway.perform(.tvStandby)
        let sent = await eventually { tv.powerCommands == ["standby"] }
        XCTAssertTrue(sent, "\(tv.powerCommands)")
        busSink.yield(.received(TVBusMessage(from: 0, to: 15, .standby)))
        let seen = await eventually { await gateway.state.tv?.power == .standby }
        XCTAssertTrue(seen)
        let player = await gateway.state.player
        XCTAssertEqual(player, .playing)

        // The TV's own standby, later: the receiver pauses.
        busSink.yield(.received(TVBusMessage(from: 0, to: 4, .reportPowerStatus(.on))))
        await clock.advance(by: TVMachine.ownChangeWindow)
        busSink.yield(.received(TVBusMessage(from: 0, to: 15, .standby)))
        let paused = await eventually { await gateway.state.player == .paused }
        XCTAssertTrue(paused)
        await service.stop()
        await gateway.stop()
    }
}
