import GatewayModel
import Synchronization
import TestSupport
import XCTest
@testable import StatusOutput

final class LEDPatternTests: XCTestCase {
    func testBlinkAndFlashCodeTimings() {
        let blink = LEDPattern.blink(on: .milliseconds(500), off: .milliseconds(500))
        XCTAssertTrue(blink.isLit(after: .zero))
        XCTAssertTrue(blink.isLit(after: .milliseconds(490)))
        XCTAssertFalse(blink.isLit(after: .milliseconds(510)))
        XCTAssertTrue(blink.isLit(after: .milliseconds(1010)))
        XCTAssertEqual(blink.nextChange(after: .zero), .milliseconds(500))

        let code = LEDPattern.flashCode(3)  // 3 × (200 on + 300 off), then 1.5 s dark: 3 s cycle
        let lit = stride(from: 0, to: 3000, by: 50).map { code.isLit(after: .milliseconds($0)) }
        var flashes = 0
        for index in lit.indices.dropFirst() where lit[index] && !lit[index - 1] { flashes += 1 }
        XCTAssertEqual(flashes + (lit.first! ? 1 : 0), 3)
        XCTAssertFalse(code.isLit(after: .milliseconds(2000)), "the pause after the code")
        XCTAssertTrue(code.isLit(after: .milliseconds(3050)), "the next cycle")
        XCTAssertNil(LEDPattern.on.nextChange(after: .zero))
        XCTAssertNil(LEDPattern.off.nextChange(after: .zero))
    }

    func testPatternsForStates() {
        var state = GatewayState()
        XCTAssertEqual(LEDPattern.patterns(for: state, starting: true, inputMissing: false)[.power], .on)
        XCTAssertEqual(LEDPattern.patterns(for: state, starting: false, inputMissing: false)[.link], .off)
        state.link = .connected
        state.player = .playing
        var patterns = LEDPattern.patterns(for: state, starting: false, inputMissing: true)
        XCTAssertEqual(patterns[.link], .on)
        XCTAssertEqual(patterns[.play], .on)
        XCTAssertEqual(patterns[.error], .flashCode(4))
        if case .blink = patterns[.power] {} else { XCTFail("power should beat while running") }
        state.player = .paused
        XCTAssertEqual(LEDPattern.patterns(for: state, starting: false, inputMissing: false)[.play], .blink(on: .seconds(1), off: .seconds(1)))
        state.player = .buffering
        XCTAssertEqual(LEDPattern.patterns(for: state, starting: false, inputMissing: false)[.play], .blink(on: .milliseconds(150), off: .milliseconds(150)))
        state.link = .reconnecting(retryInSeconds: 2)
        patterns = LEDPattern.patterns(for: state, starting: false, inputMissing: false)
        XCTAssertEqual(patterns[.error], .flashCode(2))
        if case .blink = patterns[.link] {} else { XCTFail("link blinks while reconnecting") }
        state.link = .connected
        state.lastError = .init(code: "launch-failed", message: "NOT_FOUND")
        XCTAssertEqual(LEDPattern.patterns(for: state, starting: false, inputMissing: false)[.error], .flashCode(3))
    }

    func testLineSpecs() {
        XCTAssertEqual(LEDLineSpec(parsing: "GPIO17"), LEDLineSpec(location: .name("GPIO17")))
        XCTAssertEqual(LEDLineSpec(parsing: "pinctrl-bcm2711:22 active-low"),
                       LEDLineSpec(location: .chip(label: "pinctrl-bcm2711", offset: 22), activeLow: true))
        XCTAssertNil(LEDLineSpec(parsing: "gpiochip0:17"), "chip numbers are refused")
        XCTAssertNil(LEDLineSpec(parsing: "label:x"))
        XCTAssertNil(LEDLineSpec(parsing: "GPIO17 sideways"))
    }
}

final class LEDPanelTests: XCTestCase {
    /// A fake line recording what it was driven to.
    final class RecordingLine: LEDLine, Sendable {
        let values = Mutex<[Bool]>([])
        let released = Mutex(false)
        var current: Bool? { values.withLock { $0.last } }
        func set(_ lit: Bool) { values.withLock { $0.append(lit) } }
        func release() {
            set(false)
            released.withLock { $0 = true }
        }
    }

    func testOneTimerDrivesBlinkingAndSteadyPatternsNeedNone() async {
        let clock = ManualTimeSource()
        let link = RecordingLine(), play = RecordingLine()
        let panel = LEDPanel(lines: [.link: link, .play: play], timeSource: clock)
        await panel.show([.link: .on, .play: .off])
        XCTAssertEqual(link.current, true)
        XCTAssertEqual(play.current, false)
        let steadyTimer = await panel.isTimerRunning
        XCTAssertFalse(steadyTimer, "steady LEDs need no timer")

        await panel.show([.link: .on, .play: .blink(on: .milliseconds(1000), off: .milliseconds(1000))])
        XCTAssertEqual(play.current, true)
        await clock.settle()
        XCTAssertEqual(clock.sleeperCount, 1, "one timer for the panel")
        await clock.advance(by: .milliseconds(1100))
        XCTAssertEqual(play.current, false)
        await clock.advance(by: .milliseconds(1000))
        XCTAssertEqual(play.current, true)
        XCTAssertEqual(link.values.withLock { $0 }, [true], "a steady LED is not touched by the blinking one")

        await panel.show([.link: .on, .play: .off])
        await clock.settle()
        let stopped = await panel.isTimerRunning
        XCTAssertFalse(stopped)
        XCTAssertEqual(clock.sleeperCount, 0)
    }

    func testShutdownSwitchesOffAndReleases() async {
        let clock = ManualTimeSource()
        let power = RecordingLine()
        let panel = LEDPanel(lines: [.power: power], timeSource: clock)
        await panel.show([.power: .blink(on: .milliseconds(100), off: .milliseconds(1900))])
        await panel.shutdown()
        XCTAssertEqual(power.current, false)
        XCTAssertTrue(power.released.withLock { $0 })
        await panel.show([.power: .on])
        XCTAssertEqual(power.current, false, "nothing is driven after shutdown")
    }

    func testAMissingLineIsAClearError() {
        XCTAssertThrowsError(try GPIOLEDLine(LEDLineSpec(location: .name("NO_SUCH_LINE_CG")))) { error in
            XCTAssertTrue("\(error)".contains("NO_SUCH_LINE_CG"), "\(error)")
        }
    }
}
