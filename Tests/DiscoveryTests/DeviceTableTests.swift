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

    // MARK: The bound (hotel-scale discovery)

    private func tv(_ index: Int) -> String { "tv-" + String(repeating: "0", count: max(0, 3 - String(index).count)) + String(index) }

    private func names(_ table: DeviceTable) -> Set<String> { Set(table.devices.map(\.serviceName)) }

    func testBoundHoldsWhateverArrives() {
        var table = DeviceTable(maximumDevices: 50)
        for index in 0..<500 {
            table.apply(.resolved(service(tv(index))))
            XCTAssertLessThanOrEqual(table.count, 50)
            XCTAssertEqual(table.devices.count, table.count)
        }
        XCTAssertEqual(table.count, 50)
        XCTAssertEqual(names(table), Set((450..<500).map { tv($0) }), "the 50 announced last remain")
        XCTAssertEqual(table.devices.map(\.name), table.devices.map(\.name).sorted(), "still sorted after drops")
    }

    func testOldestIsDroppedFirst() {
        var table = DeviceTable(maximumDevices: 3)
        for name in ["a", "b", "c"] { table.apply(.resolved(service(name))) }
        XCTAssertTrue(table.dropped.isEmpty)
        XCTAssertTrue(table.apply(.resolved(service("d"))))
        XCTAssertEqual(table.dropped.map(\.serviceName), ["a"])
        XCTAssertEqual(names(table), ["b", "c", "d"])
        table.apply(.resolved(service("e")))
        XCTAssertEqual(table.dropped.map(\.serviceName), ["b"])
        XCTAssertEqual(names(table), ["c", "d", "e"])
        table.apply(.removed(serviceName: "d", interface: 2, protocolFamily: 0))
        XCTAssertTrue(table.dropped.isEmpty, "a removal drops nothing else")
        table.apply(.resolved(service("f")))
        XCTAssertTrue(table.dropped.isEmpty, "room was made by the removal")
        XCTAssertEqual(names(table), ["c", "e", "f"])
    }

    func testReannouncementRefreshesAge() {
        var table = DeviceTable(maximumDevices: 3)
        for name in ["a", "b", "c"] { table.apply(.resolved(service(name))) }
        // "a" changes its TXT (or is resolved again): it is now the newest.
        table.apply(.resolved(service("a", txt: ["id": "id-a", "fn": "a", "st": "1"])))
        table.apply(.resolved(service("d")))
        XCTAssertEqual(table.dropped.map(\.serviceName), ["b"])
        XCTAssertEqual(names(table), ["a", "c", "d"])
        // An identical announcement changes nothing visible but still counts as recent.
        XCTAssertFalse(table.apply(.resolved(service("c"))))
        table.apply(.resolved(service("e")))
        XCTAssertEqual(table.dropped.map(\.serviceName), ["a"])
        XCTAssertEqual(names(table), ["c", "d", "e"])
    }

    func testFollowedDeviceIsNeverDroppedWhileAnnounced() {
        // Kept by id (as [device] id gives it: lower-case, no dashes) and by friendly name.
        for query in ["00112233445566778899aabbccddeeff", "Room 412 TV"] {
            var table = DeviceTable(maximumDevices: 3, keeping: [query])
            table.apply(.resolved(service("followed", txt: ["id": "00112233-4455-6677-8899-AABBCCDDEEFF", "fn": "Room 412 TV"])))
            for index in 0..<100 { table.apply(.resolved(service("other-\(index)"))) }
            XCTAssertTrue(table.contains(serviceName: "followed"), query)
            XCTAssertEqual(table.count, 3, query)
            XCTAssertEqual(names(table), ["followed", "other-98", "other-99"], query)
            // Gone from the network, it leaves like any other; back, it is kept again.
            table.apply(.removed(serviceName: "followed", interface: 2, protocolFamily: 0))
            XCTAssertFalse(table.contains(serviceName: "followed"), query)
        }
    }

    func testOnlyKeptDevicesLeftDropsTheNewcomer() {
        var table = DeviceTable(maximumDevices: 1, keeping: ["Lobby"])
        table.apply(.resolved(service("lobby", txt: ["id": "1", "fn": "Lobby"])))
        table.apply(.resolved(service("guest")))
        XCTAssertEqual(table.dropped.map(\.serviceName), ["guest"])
        XCTAssertEqual(names(table), ["lobby"])
    }

    func testSmallerBoundDropsAtOnceAndKeepsTheNewKeptDevice() {
        var table = DeviceTable(maximumDevices: 10)
        for index in 0..<10 { table.apply(.resolved(service("tv-\(index)"))) }
        XCTAssertTrue(table.setLimits(maximumDevices: 4, keeping: ["tv-0"]))
        XCTAssertEqual(table.dropped.map(\.serviceName), ["tv-1", "tv-2", "tv-3", "tv-4", "tv-5", "tv-6"], "oldest first")
        XCTAssertEqual(names(table), ["tv-0", "tv-7", "tv-8", "tv-9"])
        XCTAssertFalse(table.setLimits(maximumDevices: 4, keeping: ["tv-0"]))
    }

    func testDroppedRecordsOfAllInterfacesGoTogether() {
        var table = DeviceTable(maximumDevices: 2)
        table.apply(.resolved(service("a", host: "fe80::1%eth0", protocolFamily: 1)))
        table.apply(.resolved(service("a", host: "192.168.1.8")))
        table.apply(.resolved(service("b")))
        table.apply(.resolved(service("c")))
        XCTAssertEqual(table.dropped.map(\.serviceName), ["a"])
        // A late goodbye for a dropped record is harmless.
        XCTAssertFalse(table.apply(.removed(serviceName: "a", interface: 2, protocolFamily: 1)))
        table.apply(.resynchronizing)
        table.apply(.resolved(service("c")))
        table.apply(.synchronized)
        XCTAssertEqual(names(table), ["c"])
    }
}
