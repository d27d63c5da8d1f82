import Foundation
import Fleet
import XCTest

final class FleetSettingsTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "fleet-settings-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func file(_ name: String, _ text: String, mode: Int) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    private func parse(_ pairs: [(String, String)]) throws -> FleetSettings {
        try FleetSettings.parse(pairs.map { (key: $0.0, value: $0.1) }, hostname: "box-7")
    }

    private func error(_ pairs: [(String, String)]) -> FleetSettingsError? {
        do {
            _ = try parse(pairs)
            return nil
        } catch {
            return error as? FleetSettingsError
        }
    }

    func testDefaults() throws {
        let settings = try parse([("broker", "mqtt://broker.lan")])
        XCTAssertEqual(settings.broker, FleetSettings.Broker(host: "broker.lan", port: 1883, tls: false))
        XCTAssertEqual(settings.room, "box-7")
        XCTAssertEqual(settings.clientID, "box-7")
        XCTAssertEqual(settings.topicPrefix, "castgw")
        XCTAssertEqual(settings.keepalive, 60)
        XCTAssertEqual(settings.groups, [])
        XCTAssertFalse(settings.allowCredentials)
        XCTAssertTrue(settings.haDiscovery)
        XCTAssertEqual(settings.haPrefix, "homeassistant")
        XCTAssertEqual(settings.haPresets, Array(0...9))
        XCTAssertEqual(settings.commandWait, .seconds(120))
        XCTAssertNil(settings.username)
    }

    func testEveryKey() throws {
        let password = try file("password", "s3cret\n", mode: 0o600)
        let pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        let ca = try file("ca.pem", pem, mode: 0o644)
        let cert = try file("cert.pem", pem, mode: 0o644)
        let key = try file("key.pem", "-----BEGIN PRIVATE KEY-----\n", mode: 0o600)
        let settings = try parse([
            ("broker", "mqtts://[fd00::1]:8884"), ("ca-file", ca), ("cert-file", cert), ("key-file", key),
            ("username", "room-101"), ("password-file", password), ("room", "101"), ("client-id", "castgw-101"),
            ("topic-prefix", "hotel/castgw"), ("keepalive", "30"), ("groups", "floor1, wing-a"),
            ("allow-credentials", "yes"), ("ha-discovery", "off"), ("ha-prefix", "ha"), ("ha-presets", "1-3,7"),
            ("command-wait", "300"),
        ])
        XCTAssertEqual(settings.broker, FleetSettings.Broker(host: "fd00::1", port: 8884, tls: true))
        XCTAssertEqual(settings.broker.description, "mqtts://[fd00::1]:8884")
        XCTAssertEqual([settings.caFile, settings.certFile, settings.keyFile], [ca, cert, key])
        XCTAssertEqual(settings.username, "room-101")
        XCTAssertEqual(settings.passwordFile, password)
        XCTAssertEqual(settings.room, "101")
        XCTAssertEqual(settings.clientID, "castgw-101")
        XCTAssertEqual(settings.topics.state, "hotel/castgw/101/state")
        XCTAssertEqual(settings.topics.commandTopics, ["hotel/castgw/101/cmd", "hotel/castgw/all/cmd",
                                                       "hotel/castgw/group/floor1/cmd", "hotel/castgw/group/wing-a/cmd"])
        XCTAssertEqual(settings.keepalive, 30)
        XCTAssertTrue(settings.allowCredentials)
        XCTAssertFalse(settings.haDiscovery)
        XCTAssertEqual(settings.haPrefix, "ha")
        XCTAssertEqual(settings.haPresets, [1, 2, 3, 7])
        XCTAssertEqual(settings.commandWait, .seconds(300))
        XCTAssertEqual(try FleetSettings.readPassword(password), "s3cret")
    }

    func testBadValuesNameTheirKey() throws {
        let cases: [([(String, String)], String, String)] = [
            ([], "broker", "missing"),
            ([("broker", "http://x")], "broker", "not a broker URL"),
            ([("broker", "mqtt://")], "broker", "no host"),
            ([("broker", "mqtt://h:99999")], "broker", "not a port"),
            ([("broker", "mqtt://user:pw@h")], "broker", "no credentials in the URL"),
            ([("broker", "mqtt://h/path")], "broker", "has a path"),
            ([("broker", "mqtt://h"), ("room", "a/b")], "room", "must not contain '/'"),
            ([("broker", "mqtt://h"), ("room", "all")], "room", "reserved"),
            ([("broker", "mqtt://h"), ("topic-prefix", "a//b")], "topic-prefix", "empty level"),
            ([("broker", "mqtt://h"), ("groups", "ok,fl#3")], "groups", "group 'fl#3'"),
            ([("broker", "mqtt://h"), ("keepalive", "2")], "keepalive", "from 5 to 3600"),
            ([("broker", "mqtt://h"), ("allow-credentials", "maybe")], "allow-credentials", "true or false"),
            ([("broker", "mqtt://h"), ("ha-presets", "11")], "ha-presets", "0-9"),
            ([("broker", "mqtt://h"), ("command-wait", "2m")], "command-wait", "from 0 to 3600"),
            ([("broker", "mqtt://h"), ("command-wait", "3601")], "command-wait", "from 0 to 3600"),
            ([("broker", "mqtt://h"), ("ca-file", "/etc/hosts")], "ca-file", "only used with an mqtts://"),
            ([("broker", "mqtts://h"), ("cert-file", "/x")], "key-file", "go together"),
            ([("broker", "mqtts://h"), ("ca-file", "/nonexistent/ca.pem")], "ca-file", "cannot be read"),
            ([("broker", "mqtts://h"), ("ca-file", "/etc/hostname")], "ca-file", "not a PEM file"),
            ([("broker", "mqtt://h"), ("password-file", "/x")], "password-file", "needs a username"),
            ([("broker", "mqtt://h"), ("colour", "red")], "colour", "unknown key"),
        ]
        for (pairs, key, fragment) in cases {
            let failure = error(pairs)
            XCTAssertEqual(failure?.key, key, "\(pairs)")
            XCTAssertTrue(failure?.message.contains(fragment) == true, "\(pairs): \(failure?.message ?? "no error")")
        }
    }

    func testAPasswordFileOthersCanReadIsRefusedWithTheReason() throws {
        let password = try file("password", "s3cret\n", mode: 0o644)
        let failure = error([("broker", "mqtt://h"), ("username", "u"), ("password-file", password)])
        XCTAssertEqual(failure?.key, "password-file")
        XCTAssertTrue(failure?.message.contains("mode 0644") == true, failure?.message ?? "")
        XCTAssertTrue(failure?.message.contains("chmod 600 \(password)") == true)
        XCTAssertFalse(failure?.message.contains("s3cret") == true)
        let readOnly = try file("password2", "s3cret\n", mode: 0o400)
        XCTAssertEqual(try parse([("broker", "mqtt://h"), ("username", "u"), ("password-file", readOnly)]).passwordFile, readOnly)
    }

    func testAnEmptyPasswordFileIsRefused() throws {
        let password = try file("password", "\n", mode: 0o600)
        XCTAssertTrue(error([("broker", "mqtt://h"), ("username", "u"), ("password-file", password)])?.message.contains("empty") == true)
    }
}
