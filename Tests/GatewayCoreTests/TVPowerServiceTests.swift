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
}

final class TVPowerServiceTests: XCTestCase {
    func testPowersOnWhenCastingStartsAndStandsByOnceAfterIdleOnTheManualClock() async throws {
        let clock = ManualTimeSource()
        let simulator = try ReceiverSimulator()
        let gateway = Gateway(settings: GatewaySettings(device: DeviceSettings(target: .address(host: "tv.test", port: 8009))),
                              connector: { _, _ in
                                  let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
                                  await simulator.serve(receiverEnd)
                                  return clientEnd
                              }, timeSource: clock)
        await gateway.start()
        let connected = await eventually { await gateway.state.link == .connected }
        XCTAssertTrue(connected)
        let tv = RecordingTV()
        let service = RunningService(TVPowerService(gateway: gateway, settings: .init(powerOnWhenCasting: true, input: 0x2000,
                                                                                         standbyAfter: .seconds(600)), control: tv))
        try await gateway.cast(CastRequest(url: "http://media.test/a.mp4"))
        let poweredOn = await eventually { tv.commands.withLock { $0 } == ["on 2000"] }
        XCTAssertTrue(poweredOn, "\(tv.commands.withLock { $0 })")
        try await gateway.perform(.stopApp)
        let idle = await eventually { await gateway.state.appID == nil && clock.sleeperCount >= 1 }
        XCTAssertTrue(idle)
        await clock.advance(by: .seconds(599), step: .seconds(1))
        XCTAssertEqual(tv.commands.withLock { $0 }, ["on 2000"], "no standby before the idle time")
        await clock.advance(by: .seconds(2), step: .seconds(1))
        let standby = await eventually { tv.commands.withLock { $0 } == ["on 2000", "standby"] }
        XCTAssertTrue(standby, "\(tv.commands.withLock { $0 })")
        await clock.advance(by: .seconds(1200), step: .seconds(60))
        XCTAssertEqual(tv.commands.withLock { $0 }.filter { $0 == "standby" }.count, 1, "standby is sent once")
        await service.stop()
        await gateway.stop()
    }
}
