import GatewayModel
import JSON
import WebInterface
import XCTest

/// The inputs in /api/state: how each is set up, off / its problem / working, and its last key.
final class WebInputsTests: XCTestCase {
    func testEachInputShowsItsSetupStateAndLastKey() {
        var state = GatewayState()
        state.inputProblems = ["cec": "no CEC adapter answers (is the TV's HDMI-CEC on?)"]
        let inputs = [
            WebInput(name: "lirc", setup: "lircd at /run/lirc/lircd", lastKey: "lirc devinput-64:KEY_UP -> volume-up"),
            WebInput(name: "evdev", setup: nil, lastKey: nil),
            WebInput(name: "cec", setup: "[cec] in the file", lastKey: nil),
        ]
        let json = WebStatusDocument.json(state, now: 0, inputs: inputs)
        XCTAssertEqual(json["inputs"]?.serialized, #"[{"name":"lirc","setup":"lircd at /run/lirc/lircd","state":"working","#
                       + #""lastKey":"lirc devinput-64:KEY_UP -> volume-up"},{"name":"evdev","setup":"off","state":"off","lastKey":null},"#
                       + #"{"name":"cec","setup":"[cec] in the file","state":"no CEC adapter answers (is the TV's HDMI-CEC on?)","lastKey":null}]"#)
        XCTAssertEqual(WebStatusDocument.json(state, now: 0)["inputs"]?.serialized, "[]")
    }
}
