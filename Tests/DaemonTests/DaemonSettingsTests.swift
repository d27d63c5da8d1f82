import Configuration
import Foundation
import Synchronization
import CastProtocol
import GatewayCore
import GatewayModel
import RemoteInput
import StatusOutput
import SystemSupport
import XCTest
@testable import Daemon

final class DaemonSettingsTests: XCTestCase {
    private func parse(_ text: String) throws -> DaemonSettings {
        try DaemonSettings(file: try ConfigFile(path: "gateway.conf", text: text), board: nil)
    }

    private func assertError(_ text: String, line: Int?, key: String?, contains fragment: String,
                             file: StaticString = #filePath, lineNumber: UInt = #line) {
        XCTAssertThrowsError(try parse(text), file: file, line: lineNumber) { error in
            guard let error = error as? ConfigError else { return XCTFail("not a ConfigError: \(error)", file: file, line: lineNumber) }
            XCTAssertEqual(error.file, "gateway.conf", file: file, line: lineNumber)
            XCTAssertEqual(error.line, line, "\(error)", file: file, line: lineNumber)
            XCTAssertEqual(error.key, key, "\(error)", file: file, line: lineNumber)
            XCTAssertTrue(error.description.contains(fragment), "\(error)", file: file, line: lineNumber)
        }
    }

    func testFullExampleParses() throws {
        let configuration = try parse("""
            # Living room
            [device]
            host = 192.168.1.20:8010   # the TV

            [cast]
            app-id = ABCD1234
            android-receiver = true
            credentials = "token # with hash"
            credentials-type = android

            [log]
            level = debug

            [lirc]
            socket = /run/lirc/lircd

            [cec]
            adapter = /dev/cec0
            role = audio-system
            osd-name = Living Room

            [console]
            device = /dev/ttyGS0
            baud = 57600

            [leds]
            power = GPIO17
            error = pinctrl-bcm2711:22 active-low

            [evdev]
            device = /dev/input/by-path/platform-ir-receiver@12-event
            grab = yes

            [keys.cec]
            PLAY = play
            F2_RED = preset-2

            [keys.lirc]
            *:KEY_VOLUMEUP = volume-up:10
            devinput-64:KEY_REWIND = seek-10

            [presets]
            1 = http://tv.local/news.m3u8 | News
            2 = http://tv.local/music.mp3
            """)
        XCTAssertEqual(configuration.gateway.device.target, .address(host: "192.168.1.20", port: 8010))
        XCTAssertEqual(configuration.gateway.cast.appID, "ABCD1234")
        XCTAssertTrue(configuration.gateway.cast.allowsAndroidReceiver)
        XCTAssertEqual(configuration.gateway.cast.launchCredentials, LaunchCredentials(credentials: "token # with hash", credentialsType: "android"))
        XCTAssertEqual(configuration.gateway.cast.effectiveMediaCredentials, configuration.gateway.cast.launchCredentials,
                       "LOAD carries the launch credentials unless media ones are set")
        XCTAssertEqual(configuration.log.level, .debug)
        XCTAssertEqual(configuration.lirc.socket, "/run/lirc/lircd")
        XCTAssertEqual(configuration.cec.role, .audioSystem)
        XCTAssertEqual(configuration.cec.osdName, "Living Room")
        XCTAssertEqual(configuration.console.device, "/dev/ttyGS0")
        XCTAssertEqual(configuration.console.baud, 57600)
        XCTAssertEqual(configuration.leds.lines, [.power: LEDLineSpec(parsing: "GPIO17")!, .error: LEDLineSpec(parsing: "pinctrl-bcm2711:22 active-low")!])
        XCTAssertTrue(configuration.evdev.grab)
        XCTAssertEqual(configuration.keymaps[.cec]?.bindings.map(\.action), [.play, .preset(2)])
        XCTAssertEqual(configuration.keymaps[.lirc]?.bindings.first, .init(input: "*:KEY_VOLUMEUP", action: .volumeUp(0.1), line: 39))
        XCTAssertEqual(configuration.gateway.presets.presets[1], .init(url: "http://tv.local/news.m3u8", title: "News"))
        XCTAssertEqual(configuration.gateway.presets.presets[2], .init(url: "http://tv.local/music.mp3", title: nil))
        XCTAssertTrue(configuration.expectsLirc)
        XCTAssertTrue(configuration.expectsCec)
    }

    func testDefaults() throws {
        let configuration = try parse("[device]\nhost = tv.local\n")
        XCTAssertEqual(configuration.gateway.device.target, .address(host: "tv.local", port: 8009))
        XCTAssertEqual(configuration.gateway.cast.appID, CastAppID.defaultMediaReceiver)
        XCTAssertFalse(configuration.gateway.cast.allowsAndroidReceiver)
        XCTAssertNil(configuration.gateway.cast.launchCredentials)
        XCTAssertEqual(configuration.cec.role, .playback)
        XCTAssertEqual(configuration.cec.osdName, "Cast Gateway")
        XCTAssertEqual(configuration.console.device, "/dev/serial0")
        XCTAssertEqual(configuration.console.baud, 115_200)
        XCTAssertFalse(configuration.expectsLirc, "no [lirc]: lircd's absence is no problem")
        XCTAssertEqual(try parse("").gateway.device.target, nil)
        XCTAssertEqual(try parse("[console]\ndevice = none\n").console.device, nil, "'none' is an absent console, not a sentinel")
    }

    func testErrorsNameFileLineAndKey() {
        assertError("[device]\nhots = x\n", line: 2, key: "[device] hots", contains: "unknown key; keys in [device]: host, name, id")
        assertError("\n[tv]\n", line: 2, key: "[tv]", contains: "unknown section")
        assertError("host = x\n", line: 1, key: "host", contains: "outside any [section]")
        assertError("[device]\nhost\n", line: 2, key: nil, contains: "expected 'key = value'")
        assertError("[device\n", line: 1, key: nil, contains: "[name]")
        assertError("[device]\nhost = a\nhost = b\n", line: 3, key: "[device] host", contains: "set twice (first on line 2)")
        assertError("[device]\nhost = a:99999\n", line: 2, key: "[device] host", contains: "HOST:PORT")
        assertError("[device]\nhost = a\nname = TV\n", line: 3, key: "[device] name", contains: "only one of host, name and id")
        assertError("[device]\nid = 1234\n", line: 2, key: "[device] id", contains: "32-hex-digit")
        assertError("[cast]\nandroid-receiver = maybe\n", line: 2, key: "[cast] android-receiver", contains: "true or false")
        assertError("[cast]\napp-id = \n", line: 2, key: "[cast] app-id", contains: "must not be empty")
        assertError("[cast]\ncredentials-type = x\n", line: 2, key: "[cast] credentials-type", contains: "credentials is not")
        assertError("[cast]\nmedia-credentials-type = x\n", line: 2, key: "[cast] media-credentials-type", contains: "media-credentials is not")
        assertError("[cast]\nmystery = 1\n", line: 2, key: "[cast] mystery",
                    contains: "keys in [cast]: app-id, android-receiver, credentials, credentials-type, media-credentials, media-credentials-type")
        assertError("[log]\nlevel = loud\n", line: 2, key: "[log] level", contains: "error, warning")
        assertError("[cec]\nrole = tv\n", line: 2, key: "[cec] role", contains: "playback, audio-system or monitor")
        assertError("[cec]\nosd-name = A Very Long OSD Name\n", line: 2, key: "[cec] osd-name", contains: "14")
        assertError("[console]\nbaud = 12345\n", line: 2, key: "[console] baud", contains: "115200")
        assertError("[keys.cec]\nPLAY = dance\n", line: 2, key: "[keys.cec] PLAY", contains: "unknown action 'dance'")
        assertError("[presets]\n10 = http://x\n", line: 2, key: "[presets] 10", contains: "digits 0 to 9")
        assertError("[presets]\n1 = not a url\n", line: 2, key: "[presets] 1", contains: "URL")
    }

    /// `[mqtt]` and `[media]` are read by their own modules' section types,
    /// with the same file, line and key as every other section.
    func testFleetAndMediaSectionsNameFileLineAndKey() throws {
        XCTAssertNil(try parse("[device]\nhost = tv\n").mqtt.fleet)
        XCTAssertNil(try parse("[device]\nhost = tv\n").media.server)
        let fleet = try XCTUnwrap(try parse("[mqtt]\nbroker = mqtts://[fd00::1]\nroom = 101\ngroups = a b\n").mqtt.fleet)
        XCTAssertEqual(fleet.broker, .init(host: "fd00::1", port: 8883, tls: true))
        XCTAssertEqual(fleet.room, "101")
        XCTAssertEqual(fleet.groups, ["a", "b"])
        assertError("[device]\nhost = tv\n[mqtt]\nroom = 101\n", line: 3, key: "[mqtt] broker", contains: "missing: set broker = mqtt://HOST[:PORT]")
        assertError("[mqtt]\nbroker = mqtt://h\nroom = 101\nkeepalive = 2\n", line: 4, key: "[mqtt] keepalive", contains: "from 5 to 3600")
        assertError("[mqtt]\nbroker = http://h\n", line: 2, key: "[mqtt] broker", contains: "'http://h' is not a broker URL")
        assertError("[mqtt]\nbroker = mqtt://h\nroom = all\n", line: 3, key: "[mqtt] room", contains: "reserved for group commands")
        assertError("[mqtt]\nbroker = mqtt://h\nroom = 1\nha-discovery = maybe\n", line: 4, key: "[mqtt] ha-discovery", contains: "true or false")
        assertError("[mqtt]\nbroker = mqtt://h\nroom = 1\nhost = x\n", line: 4, key: "[mqtt] host",
                    contains: "unknown key; keys in [mqtt]: broker, ca-file, cert-file, key-file, username, password-file, room, client-id, "
                        + "topic-prefix, keepalive, groups, allow-credentials, ha-discovery, ha-prefix, ha-presets, area, command-wait")
        assertError("[mqtt]\nbroker = mqtt://h\nroom = 1\nbroker = mqtt://i\n", line: 4, key: "[mqtt] broker", contains: "set twice (first on line 2)")
        assertError("[mqtt]\nBroker = mqtt://h\nroom = 1\n", line: 1, key: "[mqtt] broker", contains: "missing")
        assertError("[media]\nport = 1\n", line: 1, key: "[media] roots", contains: "is missing: name the directories to serve")
        assertError("[media]\nroots = relative\n", line: 2, key: "[media] roots", contains: "not an absolute path")
        assertError("[media]\nroots = /tmp\nport = x\n", line: 3, key: "[media] port", contains: "must be a TCP port (0 = any free port), got 'x'")
        assertError("[media]\nroots = /tmp\ncors-origin = https://a.example/path\n", line: 3, key: "[media] cors-origin",
                    contains: "is not * or an origin like https://receiver.example.com")
        assertError("[media]\nroots = /tmp\nports = 1\n", line: 3, key: "[media] ports", contains: "unknown key; keys in [media]: roots, port, cors-origin")
    }

    func testDiscoverySectionBoundsTheTableAndKeepsTheFollowedDevice() throws {
        XCTAssertEqual(try parse("").discovery.maximumDevices, 1000)
        XCTAssertEqual(try parse("[discovery]\nmax-devices = 250\n").discovery.maximumDevices, 250)
        XCTAssertEqual(try parse("[device]\nname = Room 412\n").keptDevices, ["Room 412"])
        XCTAssertEqual(try parse("[device]\nid = 0011-2233-4455-6677-8899-AABB-CCDD-EEFF\n").keptDevices, ["00112233445566778899aabbccddeeff"])
        XCTAssertEqual(try parse("[device]\nhost = 10.0.0.2\n").keptDevices, [])
        assertError("[discovery]\nmax-devices = 0\n", line: 2, key: "[discovery] max-devices", contains: "from 1 to 100000")
        assertError("[discovery]\nmax-devices = lots\n", line: 2, key: "[discovery] max-devices", contains: "got 'lots'")
        assertError("[discovery]\nmax-device = 5\n", line: 2, key: "[discovery] max-device", contains: "keys in [discovery]: max-devices")
    }

    func testHostPortForms() {
        XCTAssertEqual(DeviceSettings.parseHostPort("10.0.0.2")?.port, 8009)
        XCTAssertEqual(DeviceSettings.parseHostPort("tv:8010")?.host, "tv")
        XCTAssertEqual(DeviceSettings.parseHostPort("[fe80::1]:8010")?.host, "fe80::1")
        XCTAssertEqual(DeviceSettings.parseHostPort("[::1]")?.port, 8009)
        XCTAssertEqual(DeviceSettings.parseHostPort("fe80::1")?.host, "fe80::1")
        XCTAssertNil(DeviceSettings.parseHostPort("tv:0"))
        XCTAssertNil(DeviceSettings.parseHostPort("tv:http"))
        XCTAssertNil(DeviceSettings.parseHostPort("[::1"))
        XCTAssertNil(DeviceSettings.parseHostPort(""))
    }

    func testLoadWarnsWhenCredentialsAreReadableByOthers() throws {
        let path = NSTemporaryDirectory() + "gateway-\(UInt32.random(in: 0...UInt32.max)).conf"
        try "[cast]\ncredentials = secret\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        chmod(path, 0o644)
        XCTAssertTrue(try DaemonSettings.load(path: path).warnings.first?.contains("chmod 600") ?? false)
        chmod(path, 0o600)
        XCTAssertEqual(try DaemonSettings.load(path: path).warnings, [])
        XCTAssertThrowsError(try DaemonSettings.load(path: path + ".missing")) { error in
            XCTAssertTrue("\(error)".contains("No such file"), "\(error)")
        }
    }
}

final class KeymapConfigurationTests: XCTestCase {
    private func parse(_ text: String) throws -> DaemonSettings {
        try DaemonSettings(file: try ConfigFile(path: "gateway.conf", text: text), board: nil)
    }

    func testKeyNamesAreCheckedPerSource() throws {
        XCTAssertNoThrow(try parse("[keys.cec]\nF2_RED = preset-2\n[keys.evdev]\nKEY_RED = subtitles\n[keys.lirc]\nhotel:ANY_BUTTON = play\n*:KEY_MUTE = mute\nKEY_1 = preset-1\n"))
        let cases: [(String, String)] = [
            ("[keys.cec]\nRED = play\n", "unknown CEC key 'RED'"),
            ("[keys.evdev]\nPLAY = play\n", "unknown input key 'PLAY'"),
            ("[keys.lirc]\n*:PLAY_BUTTON = play\n", "unknown button 'PLAY_BUTTON'"),
            ("[keys.lirc]\ndevinput-64:KEY_NOPE = play\n", "unknown button 'KEY_NOPE'"),
            ("[keys.lirc]\n:KEY_PLAY = play\n", "REMOTE:BUTTON"),
        ]
        for (text, fragment) in cases {
            XCTAssertThrowsError(try parse(text)) { error in
                XCTAssertTrue("\(error)".contains(fragment) && "\(error)".contains("gateway.conf:2"), "\(error)")
            }
        }
    }
}

final class LEDConfigurationTests: XCTestCase {
    func testChipNumbersAreRefusedWithTheReason() {
        XCTAssertThrowsError(try DaemonSettings(file: try ConfigFile(path: "gateway.conf", text: "[leds]\npower = gpiochip0:17\n"), board: nil)) { error in
            XCTAssertTrue("\(error)".contains("gateway.conf:2: [leds] power") && "\(error)".contains("chip numbers"), "\(error)")
        }
    }
}

final class TVPowerPolicyTests: XCTestCase {
    func testPowerOnWhenCastingStartsAndStandbyOnceAfterIdle() {
        var policy = TVPowerPolicy(powerOnWhenCasting: true, standbyAfter: .seconds(600))
        XCTAssertNil(policy.update(appRunning: false, connected: true, now: .seconds(0)))
        XCTAssertEqual(policy.nextCheck(after: .seconds(1)), .seconds(600))
        XCTAssertNil(policy.update(appRunning: false, connected: true, now: .seconds(599)))
        XCTAssertEqual(policy.update(appRunning: false, connected: true, now: .seconds(600)), .standby)
        XCTAssertNil(policy.update(appRunning: false, connected: true, now: .seconds(1200)), "standby is sent once")
        XCTAssertNil(policy.nextCheck(after: .seconds(1200)))
        XCTAssertEqual(policy.update(appRunning: true, connected: true, now: .seconds(1300)), .powerOn)
        XCTAssertNil(policy.update(appRunning: true, connected: true, now: .seconds(1301)), "only when casting starts")
        XCTAssertNil(policy.update(appRunning: false, connected: false, now: .seconds(1400)), "no standby while offline")
    }

    func testDisabledParts() {
        var policy = TVPowerPolicy(powerOnWhenCasting: false, standbyAfter: nil)
        XCTAssertNil(policy.update(appRunning: true, connected: true, now: .zero))
        XCTAssertNil(policy.update(appRunning: false, connected: true, now: .seconds(99999)))
    }

    func testTVConfiguration() throws {
        func parse(_ text: String) throws -> DaemonSettings { try DaemonSettings(file: try ConfigFile(path: "g.conf", text: text), board: nil) }
        let configuration = try parse("[cec]\npower-on-when-casting = yes\ntv-input = 1.0.0.0\nstandby-after = 30\n")
        XCTAssertTrue(configuration.cec.tvPower.powerOnWhenCasting)
        XCTAssertEqual(configuration.cec.tvPower.input, 0x1000)
        XCTAssertEqual(configuration.cec.tvPower.standbyAfter, .seconds(1800))
        XCTAssertTrue(configuration.expectsCec)
        XCTAssertEqual(try parse("[cec]\nstandby-after = 0\n").cec.tvPower.standbyAfter, nil, "0 = never")
        XCTAssertThrowsError(try parse("[cec]\ntv-input = 1.0.0\n"))
        XCTAssertThrowsError(try parse("[cec]\ntv-input = 1.0.0.G\n"))
        XCTAssertThrowsError(try parse("[cec]\nstandby-after = soon\n"))
    }

    func testWhatTheGatewayDoesWhenTheTVChangesEachValueAndTheDefaults() throws {
        func parse(_ text: String) throws -> TVReactions {
            try DaemonSettings(file: try ConfigFile(path: "g.conf", text: "[cec]\n" + text), board: nil).cec.reactions
        }
        XCTAssertEqual(try parse(""), TVReactions(onStandby: .pause, onInputAway: .pause, onInputBack: .none, onTVOn: .none))
        for value in TVReactions.OnStandby.allCases { XCTAssertEqual(try parse("on-tv-standby = \(value.rawValue)\n").onStandby, value) }
        for value in TVReactions.OnInputAway.allCases { XCTAssertEqual(try parse("on-input-away = \(value.rawValue)\n").onInputAway, value) }
        for value in TVReactions.Resume.allCases {
            XCTAssertEqual(try parse("on-input-back = \(value.rawValue)\n").onInputBack, value)
            XCTAssertEqual(try parse("on-tv-on = \(value.rawValue)\n").onTVOn, value)
        }
        for (text, key, expected) in [("on-tv-standby = off", "on-tv-standby", "pause, stop or none"), ("on-input-away = stop", "on-input-away", "pause or none"),
                                      ("on-input-back = resume", "on-input-back", "none or play"), ("on-tv-on = yes", "on-tv-on", "none or play")] {
            XCTAssertThrowsError(try parse("\n" + text + "\n")) { error in
                XCTAssertTrue("\(error)".contains("g.conf:3: [cec] \(key)") && "\(error)".contains(expected), "\(error)")
            }
        }
    }
}

final class RecurringProblemTests: XCTestCase {
    func testOneOutageWarnsOnceThenInformsOfChangesAndDebugsRepeats() {
        let lines = Mutex<[(LogLevel, String)]>([])
        Logger.setSink { level, text in lines.withLock { $0.append((level, text)) } }
        let previous = Logger.level
        Logger.level = .debug
        defer { Logger.setSink(nil); Logger.level = previous }
        let logger = Logger(label: "test")
        var problem = RecurringProblem()
        problem.report("lircd missing", to: logger)
        problem.report("lircd missing", to: logger)
        problem.report("lircd refused", to: logger)
        problem.clear()
        problem.report("lircd refused", to: logger)
        XCTAssertEqual(lines.withLock { $0.map(\.0) }, [.warning, .debug, .info, .warning])
        XCTAssertEqual(lines.withLock { $0.map(\.1) }.last, "test: lircd refused")
    }
}

/// Files as they arrive from the field: saved by Windows editors, typed by
/// hand, damaged, or holding secrets that must not be repeated.
final class ConfigFieldFileTests: XCTestCase {
    private func parse(_ text: String) throws -> DaemonSettings {
        try DaemonSettings(file: try ConfigFile(path: "gateway.conf", text: text), board: nil)
    }

    func testByteOrderMarkAndCRLFAreAccepted() throws {
        let configuration = try parse("\u{FEFF}[device]\r\nhost = 10.0.0.2:8010\r\n\r\n[log]\r\nlevel = debug\r\n")
        XCTAssertEqual(configuration.gateway.device.target, .address(host: "10.0.0.2", port: 8010))
        XCTAssertEqual(configuration.log.level, .debug)
    }

    func testBadHostsAreRefusedAtCheckTime() {
        for bad in [#""127.0.0.1"#, "::1::::", "127.0.0.1\u{0}evil", "a b", "-tv", "tv..local", "300.1.1.1", "fe80::1%", "[::1]x"] {
            XCTAssertThrowsError(try parse("[device]\nhost = \(bad)\n"), bad.debugDescription) { error in
                XCTAssertEqual((error as? ConfigError)?.line, 2, "\(error)")
            }
        }
        for good in ["10.0.0.2", "tv.local", "living-room-tv", "[::1]:8009", "fe80::1%eth0", "tv.local."] {
            XCTAssertNoThrow(try parse("[device]\nhost = \(good)\n"), good)
        }
    }

    func testSecretsAreNotQuotedInErrors() {
        for text in ["[cast]\ncredentials: hunter2-secret\n", "[cast]\ncredentials = \"hunter2-secret\n",
                     "[cast]\ncredentials = hunter2-secret\ncredentials = hunter2-secret\n"] {
            XCTAssertThrowsError(try parse(text)) { error in
                XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
                XCTAssertEqual((error as? ConfigError)?.file, "gateway.conf")
            }
        }
        XCTAssertThrowsError(try parse("[device]\nhost \"x\n")) { error in
            XCTAssertTrue("\(error)".contains(#"found 'host "x'"#), "an ordinary line is still quoted: \(error)")
        }
    }

    func testOptionValuesAreNeverEchoed() throws {
        var arguments = ArgumentReader(["--credentials-typo=hunter2-secret", "x"])
        XCTAssertThrowsError(try arguments.finish(maximumPositionals: 2)) { error in
            XCTAssertEqual("\(error)", "unknown option --credentials-typo")
        }
        var withEquals = ArgumentReader(["--credentials=hunter2-secret"])
        XCTAssertEqual(try withEquals.option("--credentials"), "hunter2-secret")
        // Found by the cli fuzzer: a value forgotten before an option with a secret.
        var forgotten = ArgumentReader(["--timeout", "--credentials=hunter2-secret", "--json"])
        XCTAssertThrowsError(try forgotten.intOption("--timeout", in: 1...600)) { error in
            XCTAssertEqual("\(error)", "--timeout needs a value before the next option")
        }
        var secretLike = ArgumentReader(["--credentials", "--hunter2"])
        XCTAssertThrowsError(try secretLike.option("--credentials")) { error in
            XCTAssertFalse("\(error)".contains("hunter2"), "\(error)")
        }
    }
}
