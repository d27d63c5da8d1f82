import GatewayModel
import XCTest
@testable import Discovery

final class DeviceTableTests: XCTestCase {
    private func service(_ name: String, host: String = "10.0.0.2", port: UInt16 = 8009, interface: Int32 = 2,
                         protocolFamily: Int32 = 0, txt: [String: String]? = nil) -> ResolvedService {
        ResolvedService(serviceName: name, interface: interface, protocolFamily: protocolFamily, host: host, port: port,
                        txt: txt ?? ["id": "id-\(name)", "fn": name, "md": "Chromecast", "ca": "4101", "st": "0"])
    }

    func testTXTParsingKeepsUnknownKeysAndFirstOccurrence() {
        let txt = ResolvedService.parseTXT(["id=abc", "fn=Living Room TV", "FN=ignored", "flag", "=novalue", "", "bs=FA8F", "new=x=y"])
        XCTAssertEqual(txt, ["id": "abc", "fn": "Living Room TV", "flag": "", "bs": "FA8F", "new": "x=y"])
    }

    func testDeviceFieldsFromTXT() {
        let device = service("Chromecast-abc", txt: ["id": "0123", "fn": "Kitchen", "md": "Google Nest Mini", "ca": "199172",
                                                      "st": "1", "rs": "Spotify", "ve": "05", "ic": "/setup/icon.png"]).device
        XCTAssertEqual(device.name, "Kitchen")
        XCTAssertEqual(device.model, "Google Nest Mini")
        XCTAssertTrue(device.busy)
        XCTAssertEqual(device.runningApp, "Spotify")
        XCTAssertEqual(device.txt["ve"], "05")
        XCTAssertTrue(device.capabilities.contains(.audioOut))
        XCTAssertFalse(device.isGroup)
        XCTAssertTrue(device.matches("kitchen"))
        XCTAssertTrue(device.matches("0123"))
        XCTAssertFalse(device.matches("Kitch"))
    }

    func testGroupsByCapabilityBitOrPortWithoutCapabilities() {
        XCTAssertTrue(service("g", port: 32187, txt: ["ca": "2084", "fn": "Group"]).device.isGroup)
        XCTAssertTrue(service("g", port: 32187, txt: ["fn": "Group"]).device.isGroup)
        XCTAssertFalse(service("d", port: 8009, txt: ["fn": "TV"]).device.isGroup)
        XCTAssertFalse(service("s", port: 41234, txt: ["ca": "4101", "fn": "Sim"]).device.isGroup)
    }

    func testOneEntryPerServicePreferringIPv4AndSortedByName() {
        var table = DeviceTable()
        table.apply(.resolved(service("b-tv", host: "fe80::1%eth0", protocolFamily: 1)))
        table.apply(.resolved(service("b-tv", host: "192.168.1.9")))
        table.apply(.resolved(service("a-tv", host: "192.168.1.8")))
        XCTAssertEqual(table.devices.map(\.name), ["a-tv", "b-tv"])
        XCTAssertEqual(table.devices.last?.host, "192.168.1.9")
        table.apply(.removed(serviceName: "b-tv", interface: 2, protocolFamily: 0))
        XCTAssertEqual(table.devices.last?.host, "fe80::1%eth0", "the IPv6 record remains")
        table.apply(.removed(serviceName: "b-tv", interface: 2, protocolFamily: 1))
        XCTAssertEqual(table.devices.map(\.name), ["a-tv"])
    }

    func testAddressChangeIsAnUpdateNotADuplicate() {
        var table = DeviceTable()
        table.apply(.resolved(service("tv", port: 8009)))
        XCTAssertTrue(table.apply(.resolved(service("tv", port: 8010))))
        XCTAssertEqual(table.devices.count, 1)
        XCTAssertEqual(table.devices.first?.port, 8010)
        XCTAssertFalse(table.apply(.resolved(service("tv", port: 8010))), "no change, no snapshot")
    }

    func testResynchronizationDropsWhatWasNotSeenAgain() {
        var table = DeviceTable()
        table.apply(.resolved(service("kept")))
        table.apply(.resolved(service("gone")))
        table.apply(.unavailable("avahi-daemon is not running"))
        XCTAssertEqual(table.snapshot.problem, "avahi-daemon is not running")
        XCTAssertEqual(table.devices.count, 2, "devices stay known while the daemon is away")
        table.apply(.resynchronizing)
        XCTAssertNil(table.snapshot.problem)
        table.apply(.resolved(service("kept")))
        table.apply(.synchronized)
        XCTAssertEqual(table.devices.map(\.name), ["kept"])
    }
}
