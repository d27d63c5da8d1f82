import Configuration
import Foundation
import Fleet
import SystemSupport
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

    /// `pairs` as the `[mqtt]` section of `gateway.conf`: the section's
    /// header on line 1, pair N on line N + 2.
    private func configText(_ pairs: [(String, String)]) -> String {
        "[mqtt]\n" + pairs.map { "\($0.0) = \($0.1)\n" }.joined()
    }

    /// Reads `pairs` as the daemon does: the section type, then the unknown-key check.
    private func parse(_ pairs: [(String, String)]) throws -> FleetSettings {
        var section = try ConfigFile(path: "gateway.conf", text: configText(pairs)).section(MQTTSection.sectionName)
        let settings = try MQTTSection(from: &section, hostname: "box-7")
        try section.checkForUnknownKeys()
        return try XCTUnwrap(settings.fleet, "a present [mqtt] section gives fleet settings")
    }

    private func error(_ pairs: [(String, String)]) -> ConfigError? {
        do {
            _ = try parse(pairs)
            return nil
        } catch {
            return error as? ConfigError
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
        XCTAssertNil(settings.haPresets, "every configured preset")
        XCTAssertNil(settings.area)
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
            ([("broker", "mqtt://h"), ("colour", "red")], "colour",
             "unknown key; keys in [mqtt]: broker, ca-file, cert-file, key-file, username, password-file, room, client-id, "
                + "topic-prefix, keepalive, groups, allow-credentials, ha-discovery, ha-prefix, ha-presets, area, command-wait"),
        ]
        for (pairs, key, fragment) in cases {
            let failure = error(pairs)
            XCTAssertEqual(failure?.file, "gateway.conf", "\(pairs)")
            XCTAssertEqual(failure?.key, "[mqtt] \(key)", "\(pairs)")
            // The key's own line; a key that is missing (or missing its pair) is shown at the header.
            let expectedLine = (pairs.firstIndex { $0.0 == key }).map { $0 + 2 } ?? 1
            XCTAssertEqual(failure?.line, expectedLine, "\(pairs): \(failure.map(String.init(describing:)) ?? "no error")")
            XCTAssertTrue(failure?.message.contains(fragment) == true, "\(pairs): \(failure?.message ?? "no error")")
        }
    }

    func testErrorsReadAsFileLineKeyAndMessage() {
        XCTAssertEqual(error([("room", "101")])?.description,
                       "gateway.conf:1: [mqtt] broker: missing: set broker = mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        XCTAssertEqual(error([("broker", "mqtt://h"), ("keepalive", "2")])?.description,
                       "gateway.conf:3: [mqtt] keepalive: '2' must be a whole number of seconds from 5 to 3600")
        XCTAssertEqual(error([("broker", "mqtt://h"), ("colour", "red")])?.description.hasPrefix("gateway.conf:3: [mqtt] colour: unknown key"),
                       true)
    }

    func testAnEmptyValueKeepsTheDefault() throws {
        let settings = try parse([("broker", "mqtt://h"), ("room", ""), ("groups", ""), ("ha-discovery", ""), ("keepalive", "")])
        XCTAssertEqual(settings.room, "box-7")
        XCTAssertEqual(settings.groups, [])
        XCTAssertTrue(settings.haDiscovery)
        XCTAssertEqual(settings.keepalive, 60)
        XCTAssertEqual(error([("broker", "")])?.message.contains("missing"), true)
    }

    func testAKeySetTwiceIsRefusedByTheFile() {
        XCTAssertThrowsError(try parse([("broker", "mqtt://a"), ("room", "1"), ("broker", "mqtt://b")])) { error in
            XCTAssertEqual((error as? ConfigError)?.description, "gateway.conf:4: [mqtt] broker: set twice (first on line 2)")
        }
    }

    func testNoSectionNoFleet() throws {
        var section = try ConfigFile(path: "gateway.conf", text: "[device]\nhost = tv\n").section(MQTTSection.sectionName)
        XCTAssertNil(try MQTTSection(from: &section, hostname: "box-7").fleet)
        XCTAssertNoThrow(try section.checkForUnknownKeys())
        var empty = try ConfigFile(path: "gateway.conf", text: "[mqtt]\n").section(MQTTSection.sectionName)
        XCTAssertThrowsError(try MQTTSection(from: &empty, hostname: "box-7"), "a [mqtt] header alone asks for a fleet client")
    }

    func testSettingsFromArguments() throws {
        let settings = try FleetSettings.parse([(key: "broker", value: "mqtt://h:1884"), (key: "room", value: "r1"), (key: "groups", value: ""),
                                                (key: "ha-discovery", value: "false")], hostname: nil)
        XCTAssertEqual(settings.broker, FleetSettings.Broker(host: "h", port: 1884, tls: false))
        XCTAssertEqual(settings.room, "r1")
        XCTAssertEqual(settings.groups, [])
        XCTAssertFalse(settings.haDiscovery)
        XCTAssertThrowsError(try FleetSettings.parse([(key: "broker", value: "mqtt://h"), (key: "room", value: "r\"1")], hostname: nil))
        XCTAssertThrowsError(try FleetSettings.parse([(key: "broker", value: "mqtt://h\nallow-credentials = true")], hostname: "r"))
        XCTAssertThrowsError(try FleetSettings.parse([(key: "broker", value: "mqtt://h"), (key: "colour", value: "red")], hostname: "r")) { error in
            XCTAssertEqual((error as? ConfigError)?.key, "[mqtt] colour")
        }
    }

    func testAPasswordFileOthersCanReadIsRefusedWithTheReason() throws {
        let password = try file("password", "s3cret\n", mode: 0o644)
        let failure = error([("broker", "mqtt://h"), ("username", "u"), ("password-file", password)])
        XCTAssertEqual(failure?.key, "[mqtt] password-file")
        XCTAssertEqual(failure?.line, 4)
        XCTAssertTrue(failure?.message.contains("mode 0644") == true, failure?.message ?? "")
        // The value of a key that looks secret is never repeated (ConfigSection): the line shows which file.
        XCTAssertTrue(failure?.message.contains("chmod 600 <hidden>") == true, failure?.message ?? "")
        XCTAssertFalse(failure?.message.contains(password) == true)
        XCTAssertFalse(failure?.message.contains("s3cret") == true)
        let readOnly = try file("password2", "s3cret\n", mode: 0o400)
        XCTAssertEqual(try parse([("broker", "mqtt://h"), ("username", "u"), ("password-file", readOnly)]).passwordFile, readOnly)
    }

    func testAnEmptyPasswordFileIsRefused() throws {
        let password = try file("password", "\n", mode: 0o600)
        XCTAssertTrue(error([("broker", "mqtt://h"), ("username", "u"), ("password-file", password)])?.message.contains("empty") == true)
    }
}
