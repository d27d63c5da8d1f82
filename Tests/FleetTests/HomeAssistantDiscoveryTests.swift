import CastProtocol
import GatewayModel
import JSON
import XCTest
@testable import Fleet

/// The discovery payloads, byte for byte: Home Assistant reads exactly these.
final class HomeAssistantDiscoveryTests: XCTestCase {
    private let settings = FleetSettings(broker: .init(host: "broker", port: 1883, tls: false), room: "101", area: "First floor")
    private let context = HomeAssistantContext(
        presets: [.init(number: 1, name: "News", url: "http://tv/news.m3u8"), .init(number: 3, name: "news.mp4", url: "http://tv/news.mp4")],
        tv: true, keySources: ["cec", "lirc"], mappedKeys: ["PLAY", "KEY_PLAY", "F2_RED"], model: "Raspberry Pi 4 B", hardwareVersion: "1.4")

    private let device = #""device":{"identifiers":["castgw_101"],"name":"101","manufacturer":"cast-gateway","model":"Raspberry Pi 4 B","sw_version":"1.2.0","hw_version":"1.4","suggested_area":"First floor"},"origin":{"name":"cast-gateway","sw_version":"1.2.0"}"#
    private let gatewayOnly = #""availability":[{"topic":"castgw/101/availability","payload_available":"online","payload_not_available":"offline"}]"#
    private let needsReceiver = #""availability":[{"topic":"castgw/101/availability","payload_available":"online","payload_not_available":"offline"},{"topic":"castgw/101/link","payload_available":"online","payload_not_available":"offline"}],"availability_mode":"all""#

    private func messages() -> [String: String] {
        let all = HomeAssistantDiscovery.messages(settings: settings, context: context, version: "1.2.0", devices: ["Lobby TV", "Bar TV"])
        XCTAssertTrue(all.allSatisfy { $0.retain && $0.qos == 1 })
        XCTAssertTrue(all.allSatisfy { (try? JSONValue(parsing: $0.payload)) != nil }, "valid JSON")
        return Dictionary(uniqueKeysWithValues: all.map { ($0.topic, $0.text) })
    }

    func testTheEntitySetFollowsTheConfiguration() {
        let topics = HomeAssistantDiscovery.messages(settings: settings, context: context, version: "1.2.0", devices: ["TV"])
            .map { $0.topic.replacingOccurrences(of: "homeassistant/", with: "").replacingOccurrences(of: "/castgw_101/", with: " ")
                .replacingOccurrences(of: "/config", with: "") }
        XCTAssertEqual(topics, [
            "binary_sensor connectivity", "binary_sensor problem", "sensor state", "sensor title", "sensor app", "sensor position",
            "sensor duration", "button play_pause", "button play", "button pause", "button stop", "button next", "button previous",
            "number volume", "switch mute", "button preset_1", "button preset_3", "select source", "select device", "switch tv_power",
            "sensor tv_input", "event remote_key", "device_automation trigger_f1_blue", "device_automation trigger_f3_green",
            "device_automation trigger_f4_yellow", "device_automation trigger_key_red", "device_automation trigger_key_green",
            "device_automation trigger_key_yellow", "device_automation trigger_key_blue",
        ])
        // No CEC, no presets, no inputs, no devices: none of their entities.
        let bare = HomeAssistantDiscovery.messages(settings: settings, context: HomeAssistantContext(), version: "1").map(\.topic)
        XCTAssertEqual(bare.count, 15)
        for gone in ["tv_power", "tv_input", "preset_", "source", "device/", "remote_key", "device_automation"] {
            XCTAssertFalse(bare.contains { $0.contains(gone) }, gone)
        }
        // ha-presets narrows the configured presets; it never adds one.
        var narrowed = settings
        narrowed.haPresets = [3, 5]
        let presets = HomeAssistantDiscovery.messages(settings: narrowed, context: context, version: "1").map(\.topic).filter { $0.contains("preset_") }
        XCTAssertEqual(presets, ["homeassistant/button/castgw_101/preset_3/config"])
    }

    func testBoxEntitiesExactly() {
        let all = messages()
        XCTAssertEqual(all["homeassistant/binary_sensor/castgw_101/connectivity/config"],
                       #"{"unique_id":"castgw_101_connectivity","name":"Receiver link","state_topic":"castgw/101/state","value_template":"{{ 'ON' if value_json.link == 'connected' else 'OFF' }}","device_class":"connectivity","entity_category":"diagnostic",\#(gatewayOnly),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/binary_sensor/castgw_101/problem/config"],
                       #"{"unique_id":"castgw_101_problem","name":"Problem","state_topic":"castgw/101/state","value_template":"{{ 'ON' if value_json.problem else 'OFF' }}","json_attributes_topic":"castgw/101/state","json_attributes_template":"{{ {'problem': value_json.problem, 'problems': value_json.problems} | tojson }}","device_class":"problem","entity_category":"diagnostic",\#(gatewayOnly),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/select/castgw_101/device/config"],
                       #"{"unique_id":"castgw_101_device","name":"Cast device","command_topic":"castgw/101/cmd","command_template":"use {{ value }}","state_topic":"castgw/101/state","value_template":"{{ value_json.device.name if value_json.device.name in [\"Lobby TV\",\"Bar TV\"] else 'None' }}","options":["Lobby TV","Bar TV"],"qos":1,"icon":"mdi:cast-connected",\#(gatewayOnly),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/switch/castgw_101/tv_power/config"],
                       #"{"unique_id":"castgw_101_tv_power","name":"TV power","command_topic":"castgw/101/cmd","payload_on":"tv on","payload_off":"tv standby","state_topic":"castgw/101/state","value_template":"{{ 'None' if not value_json.tv or value_json.tv.power is none else ('ON' if value_json.tv.power == 'on' else 'OFF') }}","state_on":"ON","state_off":"OFF","qos":1,"icon":"mdi:television",\#(gatewayOnly),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/event/castgw_101/remote_key/config"],
                       #"{"unique_id":"castgw_101_remote_key","name":"Remote key","state_topic":"castgw/101/event","event_types":["F2_RED","KEY_PLAY","PLAY","F1_BLUE","F3_GREEN","F4_YELLOW","KEY_RED","KEY_GREEN","KEY_YELLOW","KEY_BLUE","other"],"device_class":"button","icon":"mdi:remote",\#(gatewayOnly),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/device_automation/castgw_101/trigger_key_red/config"],
                       #"{"automation_type":"trigger","topic":"castgw/101/event","value_template":"{{ value_json.event_type if not value_json.held else '' }}","payload":"KEY_RED","type":"button_short_press","subtype":"KEY_RED",\#(device)}"#)
    }

    /// HA's update.mqtt: installed_version from the room's state, latest_version
    /// from the fleet's retained announcement, Install sends `update latest`.
    func testTheUpdateEntityExactly() {
        var withUpdates = context
        withUpdates.updates = true
        let all = Dictionary(uniqueKeysWithValues: HomeAssistantDiscovery.messages(settings: settings, context: withUpdates, version: "1.2.0")
            .map { ($0.topic, $0.text) })
        let active = "value_json.updateProgress is not none and value_json.updateProgress.state in ['requested', 'downloading', 'verifying', 'installing']"
        XCTAssertEqual(all["homeassistant/update/castgw_101/firmware/config"],
                       #"{"unique_id":"castgw_101_firmware","name":"Firmware","state_topic":"castgw/101/state","value_template":"{{ {'installed_version': value_json.version, 'in_progress': \#(active), 'update_percentage': value_json.updateProgress.percent if \#(active) else none} | tojson }}","latest_version_topic":"castgw/all/update","latest_version_template":"{{ value_json.version }}","command_topic":"castgw/101/cmd","payload_install":"update latest","title":"cast-gateway","device_class":"firmware","entity_category":"config","qos":1,\#(gatewayOnly),\#(device)}"#)
        XCTAssertNil(messages()["homeassistant/update/castgw_101/firmware/config"], "no entity on a box without A/B updates")
    }

    func testReceiverEntitiesExactly() {
        let all = messages()
        XCTAssertEqual(all["homeassistant/sensor/castgw_101/state/config"],
                       #"{"unique_id":"castgw_101_state","name":"Player","state_topic":"castgw/101/state","value_template":"{{ value_json.activity }}","json_attributes_topic":"castgw/101/state","icon":"mdi:cast",\#(needsReceiver),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/sensor/castgw_101/position/config"],
                       #"{"unique_id":"castgw_101_position","name":"Position","state_topic":"castgw/101/state","value_template":"{{ value_json.position if value_json.position is not none else 'None' }}","device_class":"duration","unit_of_measurement":"s","json_attributes_topic":"castgw/101/state","json_attributes_template":"{{ {'position_updated_at': value_json.positionUpdatedAt} | tojson }}","icon":"mdi:timer-play",\#(needsReceiver),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/button/castgw_101/play_pause/config"],
                       #"{"unique_id":"castgw_101_play_pause","name":"Play/Pause","command_topic":"castgw/101/cmd","payload_press":"toggle","qos":1,"icon":"mdi:play-pause",\#(needsReceiver),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/number/castgw_101/volume/config"],
                       #"{"unique_id":"castgw_101_volume","name":"Volume","command_topic":"castgw/101/cmd","command_template":"vol {{ value | int }}","state_topic":"castgw/101/state","value_template":"{{ value_json.volume if value_json.volume is not none else 'None' }}","min":0,"max":100,"step":1,"mode":"slider","unit_of_measurement":"%","qos":1,"icon":"mdi:volume-high",\#(needsReceiver),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/button/castgw_101/preset_3/config"],
                       #"{"unique_id":"castgw_101_preset_3","name":"news.mp4","command_topic":"castgw/101/cmd","payload_press":"preset 3","qos":1,"icon":"mdi:numeric-3-box",\#(needsReceiver),\#(device)}"#)
        XCTAssertEqual(all["homeassistant/select/castgw_101/source/config"],
                       #"{"unique_id":"castgw_101_source","name":"Play","command_topic":"castgw/101/cmd","command_template":"{{ {\"News\":\"preset 1\",\"news.mp4\":\"preset 3\"}[value] }}","state_topic":"castgw/101/state","value_template":"{{ value_json.selection if value_json.selection in [\"News\",\"news.mp4\"] else 'None' }}","options":["News","news.mp4"],"qos":1,"icon":"mdi:playlist-play",\#(needsReceiver),\#(device)}"#)
    }

    func testThePlaySelectWithTheKiosksItemsExactly() {
        let kiosk = ["Welcome to the Grand Hotel", "breakfast.jpg", "News"]
        let all = Dictionary(uniqueKeysWithValues: HomeAssistantDiscovery.messages(settings: settings, context: context, version: "1.2.0",
                                                                                   kioskItems: kiosk).map { ($0.topic, $0.text) })
        XCTAssertEqual(all["homeassistant/select/castgw_101/source/config"],
                       #"{"unique_id":"castgw_101_source","name":"Play","command_topic":"castgw/101/cmd","command_template":"{{ {\"News\":\"preset 1\",\"news.mp4\":\"preset 3\",\"Playlist 1: Welcome to the Grand Hotel\":\"playlist play 1\",\"Playlist 2: breakfast.jpg\":\"playlist play 2\",\"Playlist 3: News\":\"playlist play 3\"}[value] }}","state_topic":"castgw/101/state","value_template":"{{ value_json.selection if value_json.selection in [\"News\",\"news.mp4\",\"Playlist 1: Welcome to the Grand Hotel\",\"Playlist 2: breakfast.jpg\",\"Playlist 3: News\"] else 'None' }}","options":["News","news.mp4","Playlist 1: Welcome to the Grand Hotel","Playlist 2: breakfast.jpg","Playlist 3: News"],"qos":1,"icon":"mdi:playlist-play",\#(needsReceiver),\#(device)}"#)
        // The kiosk's items alone make the select; neither presets nor items: no select.
        let kioskOnly = HomeAssistantDiscovery.messages(settings: settings, version: "1", kioskItems: ["Welcome"])
        let options = kioskOnly.first { $0.topic == "homeassistant/select/castgw_101/source/config" }
            .flatMap { try? JSONValue(parsing: $0.payload)["options"] }
        XCTAssertEqual(options, ["Playlist 1: Welcome"])
        XCTAssertFalse(HomeAssistantDiscovery.messages(settings: settings, version: "1", kioskItems: []).contains { $0.topic.contains("/source/") })
    }

    func testEachPlayOptionSendsItsCommandUnderAUniqueName() {
        let presets: [HomeAssistantContext.Preset] = [.init(number: 2, name: "Playlist 1: Spa", url: "http://tv/spa.mp4"),
                                                      .init(number: 5, name: "", url: "")]
        let long = String(repeating: "x", count: 300)
        let options = PlayOption.options(presets: presets, kioskItems: ["Spa", long])
        XCTAssertEqual(options.map(\.name), ["Playlist 1: Spa", "Preset 5", "Playlist 1: Spa (2)", "Playlist 2: " + String(repeating: "x", count: 99) + "…"])
        XCTAssertEqual(options.map(\.command), ["preset 2", "preset 5", "playlist play 1", "playlist play 2"])
        XCTAssertTrue(options.allSatisfy { $0.name.count <= 255 }, "Home Assistant keeps states of at most 255 characters")
        // A media directory of thousands: the first ones are offered.
        let many = PlayOption.options(presets: [], kioskItems: (1...500).map { "clip \($0).mp4" })
        XCTAssertEqual(many.count, PlayOption.maximumPlaylistItems)
        XCTAssertEqual(many.last?.command, "playlist play \(PlayOption.maximumPlaylistItems)")
    }

    func testNodeIDsCannotCollide() {
        func node(prefix: String = "castgw", room: String) -> String {
            var settings = self.settings
            settings.topicPrefix = prefix
            settings.room = room
            return HomeAssistantDiscovery.nodeID(settings)
        }
        XCTAssertEqual(node(room: "101"), "castgw_101", "a clean name keeps its id")
        XCTAssertEqual(node(room: "1_01"), "castgw_1_01")
        XCTAssertNotEqual(node(room: "1.01"), node(room: "1_01"))
        XCTAssertTrue(node(room: "1.01").hasPrefix("castgw_1_01_"))
        XCTAssertNotEqual(node(prefix: "hotel/castgw", room: "1"), node(prefix: "hotel_castgw", room: "1"))
        XCTAssertEqual(node(prefix: "hotel/castgw", room: "zimmer-ä.1"), "hotel_castgw_zimmer-__1_\(HomeAssistantDiscovery.shortHash("hotel/castgw_zimmer-ä.1"))")
        XCTAssertTrue(node(prefix: "hotel/castgw", room: "zimmer-ä.1").allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        XCTAssertEqual(HomeAssistantDiscovery.shortHash(""), "811c9dc5")
    }

    func testPresetNamesAndOptionNames() {
        XCTAssertEqual(HomeAssistantContext.Preset.name(url: "http://x/a/b.mp4?token=1", title: nil), "b.mp4")
        XCTAssertEqual(HomeAssistantContext.Preset.name(url: "http://x/a/b.mp4", title: "News"), "News")
        XCTAssertEqual(HomeAssistantContext.Preset.name(url: "/media/films/", title: ""), "films")
        XCTAssertEqual(HomeAssistantContext.Preset.name(url: "http://host", title: nil), "host")
        XCTAssertEqual(HomeAssistantDiscovery.optionNames(["News", "Film", "News", ""]), ["News", "Film", "News (2)"])
    }

    func testTriggerKeysAreTheFreeKeysNoKeymapMaps() {
        let context = HomeAssistantContext(keySources: ["cec", "evdev"], mappedKeys: ["F2_RED", "KEY_BLUE"])
        XCTAssertEqual(context.triggerKeys, ["F1_BLUE", "F3_GREEN", "F4_YELLOW", "KEY_RED", "KEY_GREEN", "KEY_YELLOW"])
        XCTAssertEqual(context.eventTypes.last, "other")
    }

    /// With a web interface the device names its page (HA's "Visit" link), in the device block every entity shares.
    func testTheDeviceLinksToTheWebInterfaceWhenThereIsOne() throws {
        var withWeb = context
        withWeb.configurationURL = "http://room-101.local:8080/"
        let all = HomeAssistantDiscovery.messages(settings: settings, context: withWeb, version: "1.2.0")
        let linked = device.replacingOccurrences(of: #""suggested_area":"First floor"}"#,
                                                 with: #""suggested_area":"First floor","configuration_url":"http://room-101.local:8080/"}"#)
        XCTAssertNotEqual(linked, device)
        XCTAssertTrue(all.allSatisfy { $0.text.contains(linked) }, all.first?.text ?? "none")
        XCTAssertTrue(messages().values.allSatisfy { !$0.contains("configuration_url") }, "no web interface, no link")
    }
}

/// Remote keys as events: presses at once, held keys counted, storms cut.
final class KeyEventCoalescerTests: XCTestCase {
    private func press(_ key: String, repeat isRepeat: Bool = false) -> KeyPress {
        KeyPress(event: InputEvent(source: .cec, key: key, isRepeat: isRepeat), mapped: false)
    }

    private func types(_ events: [JSONValue]) -> [String] {
        events.map { "\($0["event_type"]?.stringValue ?? "?")\($0["held"] == true ? " held \($0["repeats"]?.intValue ?? -1)" : "")" }
    }

    func testAHeldKeyIsOnePressAndAtMostOneReportPerSecond() {
        var coalescer = KeyEventCoalescer(eventTypes: ["VOLUME_UP", "other"])
        XCTAssertEqual(types(coalescer.receive(press("VOLUME_UP"), at: .zero)), ["VOLUME_UP"])
        for tick in 1...9 { XCTAssertEqual(coalescer.receive(press("VOLUME_UP", repeat: true), at: .milliseconds(tick * 100)), []) }
        XCTAssertEqual(coalescer.deadline, .milliseconds(1100))
        XCTAssertEqual(coalescer.due(at: .milliseconds(1000)), [])
        XCTAssertEqual(types(coalescer.due(at: .milliseconds(1100))), ["VOLUME_UP held 9"])
        XCTAssertNil(coalescer.deadline)
        XCTAssertEqual(coalescer.receive(press("VOLUME_UP", repeat: true), at: .milliseconds(1200)), [])
        // Another key: the rest of the hold is reported first.
        XCTAssertEqual(types(coalescer.receive(press("MUTE"), at: .milliseconds(1300))), ["VOLUME_UP held 10", "other"])
    }

    func testAStormOfPressesIsCutAndTheDroppedCounted() {
        var coalescer = KeyEventCoalescer(eventTypes: ["UP"])
        var sent = 0
        for index in 0..<100 { sent += coalescer.receive(press("UP"), at: .milliseconds(index)).count }
        XCTAssertLessThanOrEqual(sent, 21)
        XCTAssertGreaterThanOrEqual(sent, 20)
        let later = coalescer.receive(press("UP"), at: .seconds(5))
        XCTAssertEqual(later.count, 1)
        XCTAssertEqual(later.first?["dropped"]?.intValue, 100 - sent)
    }
}

final class FleetStateDocumentTests: XCTestCase {
    func testPlayingStateExactly() {
        var state = GatewayState()
        state.link = .connected
        state.deviceName = "Living Room TV"
        state.deviceAddress = "192.168.1.20:8009"
        state.devices = [CastDevice(serviceName: "x", id: "4f1c", name: "Living Room TV", model: "Chromecast", capabilities: [.videoOut],
                                    busy: true, runningApp: nil, host: "192.168.1.20", port: 8009, txt: [:])]
        state.appName = "Default Media Receiver"
        state.appID = "CC1AD845"
        state.player = .playing
        state.title = "Big \"Buck\" Bunny"
        state.position = 80
        state.positionTimestamp = 100
        state.duration = 596
        state.volume = 0.404
        state.inputProblems = ["lirc": "cannot connect to /run/lirc/lircd"]
        state.serviceFailures = ["kiosk": "kiosk failed: x; restarting"]
        var tv = TVStatus()
        tv.connected = true
        tv.power = .on
        tv.castInput = 0x2000
        tv.activeSource = 0x2000
        tv.vendorID = 0x00E091
        tv.osdName = "TV"
        state.tv = tv
        state.update = UpdateReport(outcome: .failed, version: "1.5.0", running: "1.4.0", time: "2026-12-02T07:58:00Z")
        state.updateProgress = UpdateProgress(phase: .downloading, percent: 40, version: "1.5.1", message: "from http://u/b.raucb")
        let extras = FleetStatusExtras(version: "1.4.0", startedAt: .seconds(40), inputs: ["cec", "lirc"])
        let context = FleetStateDocument.Context(wallTime: 1_796_198_400.7, presets: [.init(number: 4, name: "Big \"Buck\" Bunny", url: "http://x/b.mp4")],
                                                 commandFailure: "the command 'next' failed: nothing to skip to")
        let document = FleetStateDocument.render(state, extras: extras, now: .milliseconds(103_240), context: context)
        XCTAssertEqual(document.serialized, #"{"link":"connected","device":{"name":"Living Room TV","id":"4f1c","address":"192.168.1.20:8009"},"app":"Default Media Receiver","appId":"CC1AD845","player":"PLAYING","title":"Big \"Buck\" Bunny","position":83.2,"duration":596,"volume":40,"muted":false,"error":null,"inputs":{"cec":"ok","lirc":"cannot connect to /run/lirc/lircd"},"services":{"kiosk":"kiosk failed: x; restarting"},"tv":{"power":"on","input":"2.0.0.0","hdmi":2,"chromecast":true,"vendor":"00e091","vendorName":"LG","name":"TV"},"version":"1.4.0","uptime":63,"activity":"Playing","selection":"Big \"Buck\" Bunny","positionUpdatedAt":"2026-12-02T08:00:00Z","problem":"the update to 1.5.0 failed; back on 1.4.0","problems":["the update to 1.5.0 failed; back on 1.4.0","lirc: cannot connect to /run/lirc/lircd","kiosk failed: x; restarting","the command 'next' failed: nothing to skip to"],"tvInput":"HDMI 2 (the Chromecast)","update":{"state":"failed","version":"1.5.0","running":"1.4.0","previous":null,"time":"2026-12-02T07:58:00Z"},"updateProgress":{"state":"downloading","percent":40,"version":"1.5.1","message":"from http://u/b.raucb","time":null}}"#)
    }

    func testTheSelectionIsTheKiosksItemWhileItPlaysIt() {
        let presets: [HomeAssistantContext.Preset] = [.init(number: 1, name: "Spa", url: "http://tv/spa.mp4")]
        var state = GatewayState()
        state.link = .connected
        state.player = .playing
        state.title = "Spa"
        state.contentID = "http://box:8080/m/t/spa.mp4"
        state.kioskItems = KioskItems(names: ["Welcome", "Spa"], playing: 1)
        func selection(_ state: GatewayState) -> JSONValue? {
            FleetStateDocument.render(state, extras: FleetStatusExtras(version: "1", startedAt: .zero), now: .seconds(1),
                                      context: FleetStateDocument.Context(presets: presets))["selection"]
        }
        XCTAssertEqual(selection(state), "Playlist 2: Spa", "the kiosk's item, not the preset of the same title")
        state.player = .paused
        XCTAssertEqual(selection(state), "Playlist 2: Spa")
        state.player = .idle
        XCTAssertEqual(selection(state), .null, "nothing plays")
        state.player = .playing
        state.kioskItems?.playing = nil
        XCTAssertEqual(selection(state), "Spa", "the kiosk plays none of its items: a preset by its title")
        state.kioskItems = KioskItems(names: (1...200).map { "clip \($0)" }, playing: 150)
        state.title = "clip 151"
        XCTAssertEqual(selection(state), .null, "an item past those offered")
    }

    func testIdleStateHasEveryMemberAsNull() {
        var state = GatewayState()
        state.lastError = GatewayState.Problem(code: "device-unavailable", message: "no answer")
        state.volume = .nan
        let document = FleetStateDocument.render(state, extras: FleetStatusExtras(version: "1", startedAt: .seconds(5)), now: .seconds(1))
        XCTAssertEqual(document.serialized, #"{"link":"no-device","device":{"name":"","id":null,"address":""},"app":null,"appId":null,"player":"NONE","title":null,"position":null,"duration":null,"volume":null,"muted":false,"error":{"code":"device-unavailable","message":"no answer"},"inputs":{},"services":{},"tv":null,"version":"1","uptime":0,"activity":"Not connected","selection":null,"positionUpdatedAt":null,"problem":"no receiver is set: set [device] host, name or id","problems":["no receiver is set: set [device] host, name or id"],"tvInput":null,"update":null,"updateProgress":null}"#)
    }
}
