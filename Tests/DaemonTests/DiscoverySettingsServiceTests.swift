import CastClient
import Discovery
import GatewayCore
import GatewayModel
import ReceiverSimulator
import SystemSupport
import TestSupport
import XCTest
@testable import Daemon

/// The daemon keeps discovery's bound and kept devices current: `[discovery]`,
/// the `[device]` it follows, and the device it controls now.
final class DiscoverySettingsServiceTests: XCTestCase {
    func testKeptDevicesFollowSettingsAndTheControlledDevice() async throws {
        var initial = DaemonSettings()
        initial.discovery = DiscoverySettings(maximumDevices: 50)
        initial.gateway.device = DeviceSettings(target: .name("Lobby"))
        let settings = StateBroadcaster(initial)
        let discovery = DeviceDiscovery()  // not run: no avahi-daemon needed
        let simulator = try ReceiverSimulator(timeSource: SystemTimeSource())
        // The gateway controls "Room 7", picked at run time (not the configured device).
        let gateway = Gateway(settings: GatewaySettings(device: DeviceSettings(target: .name("Room 7"))), connector: { _, _ in
            let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
            await simulator.serve(receiverEnd)
            return clientEnd
        })
        let room7 = CastDevice(serviceName: "Chromecast-7", id: "id-room-7", name: "Room 7", model: "Chromecast",
                               capabilities: CastDevice.Capabilities(rawValue: 4101), busy: false, runningApp: nil,
                               host: "tv.test", port: 8009, txt: [:])
        await gateway.start()
        await gateway.follow(discovery: AsyncStream { continuation in
            continuation.yield(DiscoverySnapshot(devices: [room7]))
            continuation.finish()
        })
        try await gateway.waitUntilConnected(timeout: .seconds(5))
        let service = RunningService(DiscoverySettingsService(discovery: discovery, settings: settings, gateway: gateway))
        let kept = await eventually { discovery.limits.maximumDevices == 50 && discovery.limits.keeping == ["Lobby", "id-room-7"] }
        XCTAssertTrue(kept, "\(discovery.limits)")
        // A reload: a new bound and a new configured device apply at once.
        var reloaded = initial
        reloaded.discovery = DiscoverySettings(maximumDevices: 10)
        reloaded.gateway.device = DeviceSettings(target: .id("00112233445566778899aabbccddeeff"))
        settings.publish(reloaded)
        let applied = await eventually {
            discovery.limits.maximumDevices == 10 && discovery.limits.keeping == ["00112233445566778899aabbccddeeff", "id-room-7"]
        }
        XCTAssertTrue(applied, "\(discovery.limits)")
        await service.stop()
        await gateway.stop()
    }

    func testControlledDeviceIsTheOneAtTheGatewaysAddress() {
        var state = GatewayState()
        state.devices = [CastDevice(serviceName: "a", id: "id-a", name: "A", model: "", capabilities: CastDevice.Capabilities(rawValue: 0),
                                    busy: false, runningApp: nil, host: "10.0.0.5", port: 8009, txt: [:])]
        XCTAssertNil(DiscoverySettingsService.controlledDevice(in: state), "no device in use")
        state.deviceAddress = "10.0.0.5:8009"
        XCTAssertEqual(DiscoverySettingsService.controlledDevice(in: state), "id-a")
        state.deviceAddress = "10.0.0.6:8009"
        XCTAssertNil(DiscoverySettingsService.controlledDevice(in: state), "a fixed host that discovery does not know")
        var settings = DaemonSettings()
        settings.gateway.device = DeviceSettings(target: .id("00112233445566778899aabbccddeeff"))
        XCTAssertEqual(DiscoverySettingsService.kept(settings, controlled: "id-a"), ["00112233445566778899aabbccddeeff", "id-a"])
        settings.gateway.device = DeviceSettings(target: .name("id-a"))
        XCTAssertEqual(DiscoverySettingsService.kept(settings, controlled: "id-a"), ["id-a"], "once")
    }
}
