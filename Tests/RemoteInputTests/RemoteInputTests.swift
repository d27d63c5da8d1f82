import Commands
import GatewayModel
import Synchronization
import TestSupport
import XCTest
@testable import RemoteInput

final class KeymapTests: XCTestCase {
    func testEveryDefaultLinuxInputMapping() {
        let keymap = Keymap.standard(for: .lirc)
        let expected: [String: Action] = [
            "KEY_PLAY": .play, "KEY_PAUSE": .pause, "KEY_PLAYPAUSE": .toggle, "KEY_STOP": .stop, "KEY_NEXTSONG": .next,
            "KEY_PREVIOUSSONG": .previous, "KEY_FASTFORWARD": .seekBy(30), "KEY_REWIND": .seekBy(-10),
            "KEY_VOLUMEUP": .volumeUp(0.05), "KEY_VOLUMEDOWN": .volumeDown(0.05), "KEY_MUTE": .toggleMute,
            "KEY_SUBTITLE": .cycleSubtitles, "KEY_AUDIO": .cycleAudioTrack, "KEY_1": .preset(1), "KEY_0": .preset(0),
            "KEY_NUMERIC_7": .preset(7), "KEY_CHANNELUP": .next, "KEY_EXIT": .stopApp, "KEY_OK": .toggle,
        ]
        for (key, action) in expected {
            XCTAssertEqual(keymap.action(for: InputEvent(source: .lirc, key: key, remote: "devinput-64")), action, key)
        }
        for (key, action) in Keymap.linuxInputDefaults {
            XCTAssertTrue(RemoteKeyNames.linuxInput.contains(key), "default \(key) is not a known key name")
            XCTAssertEqual(keymap.action(for: InputEvent(source: .lirc, key: key)), action)
        }
        XCTAssertNil(keymap.action(for: InputEvent(source: .lirc, key: "KEY_POWER")))
    }

    func testEveryDefaultCECMapping() {
        let keymap = Keymap.standard(for: .cec)
        for (key, action) in Keymap.cecDefaults {
            XCTAssertTrue(RemoteKeyNames.cec.contains(key), "default \(key) is not a libcec name")
            XCTAssertEqual(keymap.action(for: InputEvent(source: .cec, key: key)), action)
        }
        XCTAssertEqual(keymap.action(for: InputEvent(source: .cec, key: "PAUSE_PLAY_FUNCTION")), .toggle)
        XCTAssertEqual(keymap.action(for: InputEvent(source: .cec, key: "NUMBER3")), .preset(3))
    }

    func testOverridesWildcardsAndSpecificRemotes() {
        let keymap = Keymap.standard(for: .lirc, overrides: [
            ("*:KEY_VOLUMEUP", .volumeUp(0.1)), ("hotel-remote:KEY_VOLUMEUP", .none), ("KEY_RED", .preset(5)),
            ("KEY_PLAY", .none),
        ])
        XCTAssertEqual(keymap.action(for: InputEvent(source: .lirc, key: "KEY_VOLUMEUP", remote: "devinput-64")), .volumeUp(0.1))
        XCTAssertNil(keymap.action(for: InputEvent(source: .lirc, key: "KEY_VOLUMEUP", remote: "hotel-remote")))
        XCTAssertEqual(keymap.action(for: InputEvent(source: .lirc, key: "KEY_RED", remote: "any")), .preset(5))
        XCTAssertNil(keymap.action(for: InputEvent(source: .lirc, key: "KEY_PLAY")), "none disables a default")
    }
}

final class LircLineTests: XCTestCase {
    func testParsesLircdLines() {
        let line = LircLine("00000000000000a4 00 KEY_PLAYPAUSE devinput-64")
        XCTAssertEqual(line?.code, 0xA4)
        XCTAssertEqual(line?.event, InputEvent(source: .lirc, key: "KEY_PLAYPAUSE", remote: "devinput-64", isRepeat: false))
        XCTAssertEqual(LircLine("0000000080010073 1a KEY_VOLUMEUP devinput-32")?.repeatCount, 26)
        XCTAssertEqual(LircLine("0000000080010073 1a KEY_VOLUMEUP devinput-32")?.event.isRepeat, true)
    }

    func testRejectsMalformedLines() {
        for bad in ["", "BEGIN", "00a4 00 KEY_PLAY", "zz 00 KEY_PLAY r", "00a4 xx KEY_PLAY r", "00a4 00 KEY:PLAY r",
                    "00000000000000000a4 00 KEY_PLAY r", "00a4 00 KEY_PLAY r extra", "00a4 00 KÉY r"] {
            XCTAssertNil(LircLine(Substring(bad)), bad)
        }
    }
}

final class ActionSchedulerTests: XCTestCase {
    private final class Recorder: Sendable {
        let actions = Mutex<[Action]>([])
        let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
        var list: [Action] { actions.withLock { $0 } }
    }

    func testHeldVolumeIsCoalescedAndNoStepIsLost() async {
        let clock = ManualTimeSource()
        let recorder = Recorder()
        let scheduler = ActionScheduler(timeSource: clock) { action in recorder.actions.withLock { $0.append(action) } }
        await scheduler.submit(.volumeUp(0.05), isRepeat: false)
        for _ in 0..<9 { await scheduler.submit(.volumeUp(0.05), isRepeat: true) }
        await clock.settle()
        await clock.advance(by: .milliseconds(300))
        let isIdle = await eventually { await scheduler.isIdle }
        XCTAssertTrue(isIdle)
        let total = recorder.list.reduce(0.0) { sum, action in
            if case .volumeUp(let step) = action { return sum + step }
            return sum
        }
        XCTAssertEqual(total, 0.5, accuracy: 1e-9, "every step counts: \(recorder.list)")
        XCTAssertLessThanOrEqual(recorder.list.count, 2, "a burst becomes at most two requests: \(recorder.list)")
    }

    func testRequestsPerLaneAreRateLimited() async {
        let clock = ManualTimeSource()
        let recorder = Recorder()
        let scheduler = ActionScheduler(minimumInterval: .milliseconds(100), timeSource: clock) { action in
            recorder.actions.withLock { $0.append(action) }
        }
        for _ in 0..<100 {
            await scheduler.submit(.volumeDown(0.01), isRepeat: true)
            await scheduler.submit(.seekBy(5), isRepeat: true)
            await clock.advance(by: .milliseconds(10), step: .milliseconds(10))
        }
        await clock.advance(by: .milliseconds(500))
        _ = await eventually { await scheduler.isIdle }
        let volume = recorder.list.filter { if case .volumeDown = $0 { return true } else { return false } }
        let seeks = recorder.list.filter { if case .seekBy = $0 { return true } else { return false } }
        XCTAssertLessThanOrEqual(volume.count, 12, "1 s of flooding allows about 10 requests")
        XCTAssertLessThanOrEqual(seeks.count, 12)
        let seekTotal = seeks.reduce(0.0) { if case .seekBy(let s) = $1 { return $0 + s }; return $0 }
        XCTAssertEqual(seekTotal, 500, accuracy: 1e-9)
    }

    func testOtherActionsIgnoreRepeatsAndKeepAtMostOneWaiting() async {
        let clock = ManualTimeSource()
        let recorder = Recorder()
        let release = Mutex<[CheckedContinuation<Void, Never>]>([])
        let scheduler = ActionScheduler(timeSource: clock) { action in
            recorder.actions.withLock { $0.append(action) }
            if action == .toggle { await withCheckedContinuation { continuation in release.withLock { $0.append(continuation) } } }
        }
        await scheduler.submit(.toggle, isRepeat: false)
        await scheduler.submit(.play, isRepeat: true)     // a repeat of a non-repeating action
        await scheduler.submit(.next, isRepeat: false)
        await scheduler.submit(.previous, isRepeat: false) // replaces the waiting 'next'
        let blocked = await eventually { release.withLock { $0.count } == 1 }
        XCTAssertTrue(blocked)
        release.withLock { $0.removeFirst().resume() }
        let done = await eventually { await scheduler.isIdle }
        XCTAssertTrue(done)
        XCTAssertEqual(recorder.list, [.toggle, .previous])
    }
}

final class CecKeyCodeTests: XCTestCase {
    func testEveryCodeNameIsAKeymapName() {
        for (code, name) in CecKeyCodes.names {
            XCTAssertTrue(RemoteKeyNames.cec.contains(name), "0x\(String(code, radix: 16)) \(name) is not a known CEC key name")
        }
        XCTAssertEqual(CecKeyCodes.name(for: 0x44), "PLAY")
        XCTAssertEqual(CecKeyCodes.name(for: 0x21), "NUMBER1")
        XCTAssertEqual(CecKeyCodes.name(for: 0x41), "VOLUME_UP")
        XCTAssertEqual(CecKeyCodes.name(for: 0xEE), "CEC_238")
        XCTAssertEqual(Keymap.standard(for: .cec).action(for: InputEvent(source: .cec, key: CecKeyCodes.name(for: 0x61))), .toggle)
    }
}
