import CastClient
import GatewayModel
@testable import Interpreter
import ReceiverSimulator
import SystemSupport
import TestSupport
import XCTest
@testable import GatewayCore

/// `devices` on the console and `discover` with a hotel's worth of receivers.
final class DeviceListTests: XCTestCase {
    private func device(_ index: Int, host: String? = nil) -> CastDevice {
        let number = String(repeating: "0", count: max(0, 3 - String(index).count)) + String(index)
        return CastDevice(serviceName: "Chromecast-\(number)", id: "id\(number)", name: "Room \(number)", model: "Chromecast",
                          capabilities: CastDevice.Capabilities(rawValue: 4101), busy: false, runningApp: nil,
                          host: host ?? "10.1.\(index / 250).\(index % 250 + 1)", port: 8009, txt: [:])
    }

    private var hotel: [CastDevice] { (0..<500).map { device($0) } }

    func testDiscoverPrintsEveryDevice() {
        let lines = DeviceList.table(hotel)
        XCTAssertEqual(lines.count, 501, "a header and one row per device")
        XCTAssertTrue(lines[1].contains("Room 000") && lines[500].contains("Room 499"))
        XCTAssertTrue(lines.dropFirst().allSatisfy { $0.hasPrefix("  Room ") })
    }

    func testConsoleShowsCountFirstRowsAndHowManyMore() {
        let lines = DeviceList.page(hotel)
        XCTAssertEqual(lines.first, "500 Cast devices, showing 20")
        XCTAssertTrue(lines[1].hasPrefix("  NAME"))
        XCTAssertEqual(lines.count, 1 + 1 + DeviceList.consoleRows + 1)
        XCTAssertTrue(lines[2].contains("Room 000") && lines[21].contains("Room 019"), "\(lines)")
        XCTAssertEqual(lines.last?.hasPrefix("... and 480 more: 'devices TEXT'"), true, "\(lines)")
    }

    func testTheCurrentDeviceIsAlwaysShown() {
        let lines = DeviceList.page(hotel, current: "10.1.1.163:8009")  // Room 412
        XCTAssertTrue(lines.contains { $0.hasPrefix("* Room 412 ") }, "\(lines)")
        XCTAssertEqual(lines.count, 1 + 1 + DeviceList.consoleRows + 1)
        XCTAssertEqual(lines.last?.hasPrefix("... and 480 more"), true)
    }

    func testFilterFindsByNameIdOrAddress() {
        XCTAssertEqual(DeviceList.page(hotel, matching: "room 41").first, "10 of 500 Cast devices match \"room 41\"")
        let byID = DeviceList.page(hotel, matching: "ID412")
        XCTAssertEqual(byID.count, 3, "\(byID)")
        XCTAssertTrue(byID[2].contains("Room 412"))
        XCTAssertEqual(DeviceList.page(hotel, matching: "10.1.1.163").count, 3)
        XCTAssertEqual(DeviceList.page(hotel, matching: "Room 4").first, "100 of 500 Cast devices match \"Room 4\", showing 20")
        XCTAssertEqual(DeviceList.page(hotel, matching: "kitchen"), ["no Cast device matches \"kitchen\" (500 found)"])
    }

    func testAShortListIsTheWholeTable() {
        let few = Array(hotel.prefix(3))
        XCTAssertEqual(DeviceList.page(few), DeviceList.table(few))
        XCTAssertEqual(DeviceList.page([]), ["no Cast devices found"])
    }

    func testConsoleDevicesCommandWithFiveHundredDevices() async throws {
        let clock = SystemTimeSource()
        let simulator = try ReceiverSimulator(timeSource: clock)
        let settings = GatewaySettings(device: DeviceSettings(target: .name("Room 412")))
        let gateway = Gateway(settings: settings, connector: { _, _ in
            let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
            await simulator.serve(receiverEnd)
            return clientEnd
        }, timeSource: clock)
        await gateway.start()
        var devices = hotel
        devices[412] = device(412, host: "tv.test")
        await gateway.follow(discovery: AsyncStream { continuation in
            continuation.yield(DiscoverySnapshot(devices: devices))
            continuation.finish()
        })
        try await gateway.waitUntilConnected(timeout: .seconds(5))
        let interpreter = CommandInterpreter(gateway: gateway, version: "1")
        let lines = await interpreter.run("devices")
        XCTAssertEqual(lines.first, "500 Cast devices, showing 20")
        XCTAssertTrue(lines.contains { $0.hasPrefix("* Room 412 ") }, "\(lines)")
        let found = await interpreter.run("devices 412")
        XCTAssertEqual(found.first, "1 of 500 Cast devices match \"412\"")
        XCTAssertTrue(found.last?.hasPrefix("* Room 412 ") == true, "\(found)")
        let readOnly = await interpreter.runReadOnly("devices room 49")
        XCTAssertEqual(readOnly.first, "10 of 500 Cast devices match \"room 49\"")
        await gateway.stop()
    }

    /// A fixed host needs no mDNS until a device query: the first one asks
    /// for discovery and says to ask again; a named target asks at start.
    func testDeviceQueriesStartDiscoveryForAFixedHostAndANamedTargetAtStart() async throws {
        let fixed = Gateway(settings: GatewaySettings(device: DeviceSettings(target: .address(host: "127.0.0.1", port: 1))),
                            connector: { _, _ in throw GatewayError(.unavailable, "no receiver in this test") })
        var requests = fixed.discoveryRequests().makeAsyncIterator()
        let initial = await requests.next()
        XCTAssertEqual(initial, false)
        let interpreter = CommandInterpreter(gateway: fixed, version: "1")
        let first = await interpreter.run("devices")
        XCTAssertEqual(first.last, "(\(Gateway.discoveryStarting))", "\(first)")
        let asked = await requests.next()
        XCTAssertEqual(asked, true)
        let second = await interpreter.run("devices")
        XCTAssertFalse(second.contains("(\(Gateway.discoveryStarting))"), "said once: \(second)")
        do {
            try await fixed.use("Kitchen")
            XCTFail("no device named Kitchen")
        } catch {
            XCTAssertFalse("\(error)".contains(Gateway.discoveryStarting), "discovery was already asked for: \(error)")
        }

        let named = Gateway(settings: GatewaySettings(device: DeviceSettings(target: .name("Kitchen"))),
                            connector: { _, _ in throw GatewayError(.unavailable, "no receiver in this test") })
        await named.start()
        XCTAssertTrue(named.wantDiscovery(), "a named target asks for discovery when the gateway starts")
        await named.stop()
    }
}
