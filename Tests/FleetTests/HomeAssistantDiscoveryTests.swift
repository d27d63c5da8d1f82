import CastProtocol
import Fleet
import GatewayModel
import JSON
import XCTest

/// The discovery payloads, byte for byte: Home Assistant reads exactly these.
final class HomeAssistantDiscoveryTests: XCTestCase {
    private let settings = FleetSettings(broker: .init(host: "broker", port: 1883, tls: false), room: "101", haPresets: [3])

    private let common = #""availability_topic":"castgw/101/availability","payload_available":"online","payload_not_available":"offline","device":{"identifiers":["castgw_101"],"name":"101","manufacturer":"cast-gateway","model":"cast-gateway","sw_version":"1.2.0"},"origin":{"name":"cast-gateway","sw_version":"1.2.0"}"#

    func testEveryEntityExactly() {
        let messages = HomeAssistantDiscovery.messages(settings: settings, version: "1.2.0")
        XCTAssertTrue(messages.allSatisfy { $0.retain && $0.qos == 1 })
        let button = { (object: String, name: String, command: String, icon: String) in
            (topic: "homeassistant/button/castgw_101/\(object)/config",
             json: #"{"unique_id":"castgw_101_\#(object)","name":"\#(name)","command_topic":"castgw/101/cmd","payload_press":"\#(command)","qos":1,"icon":"\#(icon)",\#(self.common)}"#)
        }
        let expected: [(topic: String, json: String)] = [
            ("homeassistant/sensor/castgw_101/state/config",
             #"{"unique_id":"castgw_101_state","name":"State","state_topic":"castgw/101/state","value_template":"{{ value_json.player if value_json.link == 'connected' else value_json.link }}","json_attributes_topic":"castgw/101/state","icon":"mdi:cast",\#(common)}"#),
            button("play", "Play", "play", "mdi:play"),
            button("pause", "Pause", "pause", "mdi:pause"),
            button("stop", "Stop", "stop", "mdi:stop"),
            button("next", "Next", "next", "mdi:skip-next"),
            button("previous", "Previous", "prev", "mdi:skip-previous"),
            ("homeassistant/number/castgw_101/volume/config",
             #"{"unique_id":"castgw_101_volume","name":"Volume","command_topic":"castgw/101/cmd","command_template":"vol {{ value | int }}","state_topic":"castgw/101/state","value_template":"{{ value_json.volume if value_json.volume is not none else 0 }}","min":0,"max":100,"step":1,"mode":"slider","unit_of_measurement":"%","qos":1,"icon":"mdi:volume-high",\#(common)}"#),
            ("homeassistant/switch/castgw_101/mute/config",
             #"{"unique_id":"castgw_101_mute","name":"Mute","command_topic":"castgw/101/cmd","payload_on":"mute on","payload_off":"mute off","state_topic":"castgw/101/state","value_template":"{{ 'ON' if value_json.muted else 'OFF' }}","state_on":"ON","state_off":"OFF","qos":1,"icon":"mdi:volume-off",\#(common)}"#),
            button("preset_3", "Preset 3", "preset 3", "mdi:numeric-3-box"),
        ]
        XCTAssertEqual(messages.map(\.topic), expected.map(\.topic))
        for (message, want) in zip(messages, expected) {
            XCTAssertEqual(message.text, want.json, message.topic)
            XCTAssertNotNil(try? JSONValue(parsing: message.payload), "valid JSON")
        }
    }

    func testNodeIDKeepsToTheCharactersHomeAssistantAllows() {
        var settings = self.settings
        settings.topicPrefix = "hotel/castgw"
        settings.room = "zimmer-ä.1"
        XCTAssertEqual(HomeAssistantDiscovery.nodeID(settings), "hotel_castgw_zimmer-__1")
        settings.haPrefix = "ha"
        XCTAssertEqual(HomeAssistantDiscovery.messages(settings: settings, version: "1").first?.topic,
                       "ha/sensor/hotel_castgw_zimmer-__1/state/config")
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
        let extras = FleetStatusExtras(version: "1.4.0", startedAt: .seconds(40), inputs: ["cec", "lirc"])
        let document = FleetStateDocument.render(state, extras: extras, now: .milliseconds(103_240))
        XCTAssertEqual(document.serialized, #"{"link":"connected","device":{"name":"Living Room TV","id":"4f1c","address":"192.168.1.20:8009"},"app":"Default Media Receiver","appId":"CC1AD845","player":"PLAYING","title":"Big \"Buck\" Bunny","position":83.2,"duration":596,"volume":40,"muted":false,"error":null,"inputs":{"cec":"ok","lirc":"cannot connect to /run/lirc/lircd"},"services":{"kiosk":"kiosk failed: x; restarting"},"tv":{"power":"on","input":"2.0.0.0","hdmi":2,"chromecast":true,"vendor":"00e091","vendorName":"LG","name":"TV"},"version":"1.4.0","uptime":63}"#)
    }

    func testIdleStateHasEveryMemberAsNull() {
        var state = GatewayState()
        state.lastError = GatewayState.Problem(code: "device-unavailable", message: "no answer")
        state.volume = .nan
        let document = FleetStateDocument.render(state, extras: FleetStatusExtras(version: "1", startedAt: .seconds(5)), now: .seconds(1))
        XCTAssertEqual(document.serialized, #"{"link":"no-device","device":{"name":"","id":null,"address":""},"app":null,"appId":null,"player":"NONE","title":null,"position":null,"duration":null,"volume":null,"muted":false,"error":{"code":"device-unavailable","message":"no answer"},"inputs":{},"services":{},"tv":null,"version":"1","uptime":0}"#)
    }
}
