import GatewayModel
import XCTest

/// The one stream every input feeds holds a bounded number of events: a flood
/// that nobody consumes keeps the newest 256, so the last key pressed is never lost.
final class InputStreamBoundTests: XCTestCase {
    func testAHundredThousandUnconsumedEventsLeaveTheNewest256() async {
        let (events, sink) = InputEvent.makeStream()
        for index in 0..<100_000 {
            sink.yield(InputEvent(source: .lirc, key: "KEY_\(index)", remote: "a-remote-name-longer-than-fifteen"))
        }
        sink.finish()
        var kept: [String] = []
        for await event in events { kept.append(event.key) }
        XCTAssertEqual(kept, (100_000 - 256..<100_000).map { "KEY_\($0)" })
    }
}
