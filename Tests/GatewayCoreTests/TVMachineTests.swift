import GatewayModel
import XCTest
@testable import GatewayCore

/// Drives the TV machine on a clock the test moves: events in, effects out.
private struct TVDriver {
    var machine: TVMachine
    var now = Duration.seconds(1000)
    var snapshot = GatewayState()
    /// Every effect so far, in order.
    var effects: [TVMachineEffect] = []

    init(_ configuration: TVMachineConfiguration = TVMachineConfiguration(power: .init(input: 0x2000))) {
        machine = TVMachine(configuration: configuration)
    }

    @discardableResult
    mutating func handle(_ event: TVMachineEvent) -> [TVMachineEffect] {
        let done = machine.handle(event, at: now)
        effects += done
        return done
    }

    mutating func advance(by duration: Duration) {
        now += duration
        // The timer the machine armed last fires once its deadline is reached.
        while let (id, deadline) = armedTimer, deadline <= now {
            armedTimer = nil
            handle(.timerFired(id: id))
        }
    }

    var armedTimer: (Int, Duration)? {
        get {
            for effect in effects.reversed() {
                if case .armTimer(let id, let deadline) = effect { return firedTimers.contains(id) ? nil : (id, deadline) }
                if case .cancelTimer = effect { return nil }
            }
            return nil
        }
        set { if newValue == nil, let (id, _) = armedTimer { firedTimers.insert(id) } }
    }
    var firedTimers: Set<Int> = []

    /// The adapter opens as a playback device at 1.0.0.0 (logical 4), or the audio system (5).
    mutating func open(logical: UInt8 = 4) {
        handle(.bus(.opened(physicalAddress: 0x1000, logicalAddress: logical)))
    }

    /// The receiver connected, its status read, playing at 40 %.
    mutating func receiver(_ player: GatewayState.Player, app: String? = "CC1AD845", volume: Double = 0.4, muted: Bool = false, session: Int = 1) {
        snapshot.link = .connected
        snapshot.appID = app
        snapshot.receiverRunsApp = app != nil
        snapshot.player = player
        snapshot.volume = volume
        snapshot.muted = muted
        snapshot.mediaSessionID = app == nil ? nil : session
        handle(.snapshot(snapshot))
    }

    mutating func fromTV(_ body: TVBusMessage.Body, to destination: UInt8 = TVBusMessage.broadcast) {
        handle(.bus(.received(TVBusMessage(from: TVBusMessage.tv, to: destination, body))))
    }

    mutating func from(_ initiator: UInt8, _ body: TVBusMessage.Body, to destination: UInt8 = TVBusMessage.broadcast) {
        handle(.bus(.received(TVBusMessage(from: initiator, to: destination, body))))
    }

    /// The receiver actions sent so far.
    var actions: [Action] {
        effects.compactMap { if case .perform(let action) = $0 { action } else { nil } }
    }

    /// The CEC messages sent so far.
    var sent: [TVBusMessage] {
        effects.compactMap { if case .send(let message) = $0 { message } else { nil } }
    }

    /// Power and input commands to the TV so far.
    var tvCommands: [TVMachineEffect] {
        effects.filter {
            switch $0 {
            case .powerOn, .standby, .selectInput: true
            default: false
            }
        }
    }

    var status: TVStatus { machine.state.tv }

    mutating func clear() { effects.removeAll() }
}

final class TVMachineTests: XCTestCase {
    // MARK: Standby

    func testTVStandbyBroadcastWhilePlayingPausesOnce() {
        var driver = TVDriver()
        driver.open()
        driver.receiver(.playing)
        driver.fromTV(.standby)
        XCTAssertEqual(driver.actions, [.pause])
        XCTAssertEqual(driver.status.power, .standby)
        driver.fromTV(.standby)
        driver.fromTV(.reportPowerStatus(.standby), to: 4)
        XCTAssertEqual(driver.actions, [.pause], "already in standby: nothing more")
    }

    func testStandbyInReportPowerStatusPauses() {
        var driver = TVDriver()
        driver.open()
        driver.fromTV(.reportPowerStatus(.on), to: 4)
        driver.receiver(.playing)
        driver.fromTV(.reportPowerStatus(.standby), to: 4)
        XCTAssertEqual(driver.actions, [.pause])
    }

    func testEachOnTVStandbyValue() {
        for (value, expected) in [(TVReactions.OnStandby.pause, [Action.pause]), (.stop, [.stop]), (.none, [])] {
            var driver = TVDriver(TVMachineConfiguration(reactions: TVReactions(onStandby: value)))
            driver.open()
            driver.receiver(.playing)
            driver.fromTV(.standby)
            XCTAssertEqual(driver.actions, expected, value.rawValue)
        }
    }

    func testStandbyWhileNotPlayingDoesNothing() {
        for player in [GatewayState.Player.paused, .idle, .none] {
            var driver = TVDriver()
            driver.open()
            driver.receiver(player)
            driver.fromTV(.standby)
            XCTAssertEqual(driver.actions, [], player.rawValue)
        }
    }

    func testTheGatewaysOwnStandbyAfterIdleDoesNotPause() {
        var driver = TVDriver(TVMachineConfiguration(power: .init(input: 0x2000, standbyAfter: .seconds(600))))
        driver.open()
        driver.fromTV(.activeSource(0x2000))
        driver.receiver(.none, app: nil)
        driver.advance(by: .seconds(599))
        XCTAssertEqual(driver.tvCommands, [])
        driver.advance(by: .seconds(1))
        XCTAssertEqual(driver.tvCommands, [.standby])
        // Something plays by the time the TV confirms (a guest cast at that instant): still the gateway's standby.
        driver.receiver(.playing)
        driver.fromTV(.standby)
        XCTAssertEqual(driver.actions, [], "the gateway's own standby never pauses")
        // Later, the TV's own standby does.
        driver.fromTV(.reportPowerStatus(.on), to: 4)
        driver.advance(by: TVMachine.ownChangeWindow)
        driver.fromTV(.standby)
        XCTAssertEqual(driver.actions, [.pause])
    }

    func testAnExplicitStandbyCommandDoesNotPause() {
        var driver = TVDriver()
        driver.open()
        driver.receiver(.playing)
        driver.handle(.command(.standby))
        driver.fromTV(.standby)
        XCTAssertEqual(driver.tvCommands, [.standby])
        XCTAssertEqual(driver.actions, [])
    }

    // MARK: Inputs

    func testLeavingTheChromecastsInputPausesForEachMessageThatNamesAnotherInput() {
        let messages: [(UInt8, TVBusMessage.Body)] = [
            (8, .activeSource(0x3000)), (0, .routingChange(from: 0x2000, to: 0x1000)), (0, .setStreamPath(0x3000)), (0, .activeSource(0x0000)),
        ]
        for (initiator, body) in messages {
            var driver = TVDriver()
            driver.open()
            driver.from(4, .activeSource(0x2000))
            driver.receiver(.playing)
            driver.from(initiator, body)
            XCTAssertEqual(driver.actions, [.pause], "\(body)")
        }
    }

    func testInputAwayNeedsTVInputAndHonoursNone() {
        var withoutInput = TVDriver(TVMachineConfiguration())
        withoutInput.open()
        withoutInput.receiver(.playing)
        withoutInput.from(8, .activeSource(0x3000))
        XCTAssertEqual(withoutInput.actions, [], "without tv-input the gateway cannot tell the Chromecast's input")
        XCTAssertEqual(withoutInput.status.activeSource, 0x3000, "but it still knows what the TV shows")

        var none = TVDriver(TVMachineConfiguration(power: .init(input: 0x2000), reactions: TVReactions(onInputAway: .none)))
        none.open()
        none.receiver(.playing)
        none.from(8, .activeSource(0x3000))
        XCTAssertEqual(none.actions, [])
    }

    func testAStormOfActiveSourceGivesOnePause() {
        var driver = TVDriver()
        driver.open()
        driver.receiver(.playing)
        for index in 0..<100 {
            driver.from(8, .activeSource(index % 2 == 0 ? 0x3000 : 0x2000))
            driver.advance(by: .milliseconds(10))
        }
        XCTAssertEqual(driver.actions, [.pause], "100 <Active Source> in a second")
        // Paused, then played again by someone: the next switch away pauses again.
        driver.receiver(.paused)
        driver.receiver(.playing)
        driver.from(8, .activeSource(0x3000))
        XCTAssertEqual(driver.actions, [.pause, .pause])
    }

    func testComingBackResumesOnlyWhatTheGatewayPausedWhenAsked() {
        var driver = TVDriver(TVMachineConfiguration(power: .init(input: 0x2000), reactions: TVReactions(onInputBack: .play)))
        driver.open()
        driver.from(4, .activeSource(0x2000))
        driver.receiver(.playing)
        driver.from(8, .activeSource(0x3000))
        driver.receiver(.paused)
        driver.from(4, .activeSource(0x2000))
        XCTAssertEqual(driver.actions, [.pause, .play])

        // Paused by the user, not the gateway: coming back leaves it paused.
        var user = TVDriver(TVMachineConfiguration(power: .init(input: 0x2000), reactions: TVReactions(onInputBack: .play)))
        user.open()
        user.from(4, .activeSource(0x2000))
        user.receiver(.paused)
        user.from(8, .activeSource(0x3000))
        user.from(4, .activeSource(0x2000))
        XCTAssertEqual(user.actions, [])

        // The default: coming back does nothing.
        var standard = TVDriver()
        standard.open()
        standard.from(4, .activeSource(0x2000))
        standard.receiver(.playing)
        standard.from(8, .activeSource(0x3000))
        standard.receiver(.paused)
        standard.from(4, .activeSource(0x2000))
        XCTAssertEqual(standard.actions, [.pause])
    }

    func testOnTVOnPlayResumesAfterTheTVsStandby() {
        var driver = TVDriver(TVMachineConfiguration(power: .init(input: 0x2000), reactions: TVReactions(onTVOn: .play)))
        driver.open()
        driver.fromTV(.reportPowerStatus(.on), to: 4)
        driver.receiver(.playing)
        driver.fromTV(.standby)
        driver.receiver(.paused)
        driver.fromTV(.reportPowerStatus(.on), to: 4)
        XCTAssertEqual(driver.actions, [.pause, .play])

        var standard = TVDriver()
        standard.open()
        standard.fromTV(.reportPowerStatus(.on), to: 4)
        standard.receiver(.playing)
        standard.fromTV(.standby)
        standard.receiver(.paused)
        standard.fromTV(.reportPowerStatus(.on), to: 4)
        XCTAssertEqual(standard.actions, [.pause], "on-tv-on = none by default")
    }

    func testTheGatewaysOwnPowerOnAndInputSwitchWhenCastingStartsDoNotPause() {
        var driver = TVDriver(TVMachineConfiguration(power: .init(powerOnWhenCasting: true, input: 0x2000)))
        driver.open()
        driver.fromTV(.standby)
        driver.receiver(.none, app: nil)
        driver.receiver(.playing)
        XCTAssertEqual(driver.tvCommands, [.powerOn(selecting: 0x2000)])
        // The TV wakes on its last input, then switches to the Chromecast.
        driver.fromTV(.routingChange(from: 0x2000, to: 0x1000))
        driver.from(4, .activeSource(0x1000))
        driver.fromTV(.routingChange(from: 0x1000, to: 0x2000))
        XCTAssertEqual(driver.actions, [])
        XCTAssertEqual(driver.status.power, .on)
        XCTAssertEqual(driver.status.activeSource, 0x2000)
    }

    func testAnExplicitInputSwitchDoesNotPause() {
        var driver = TVDriver()
        driver.open()
        driver.receiver(.playing)
        driver.handle(.command(.selectInput(0x3000)))
        driver.fromTV(.routingChange(from: 0x2000, to: 0x3000))
        XCTAssertEqual(driver.tvCommands, [.selectInput(0x3000)])
        XCTAssertEqual(driver.actions, [])
    }

    // MARK: Never by surprise

    func testStartReconnectAndAdapterReturnNeverWakeTheTVOrSwitchItsInput() {
        var driver = TVDriver(TVMachineConfiguration(power: .init(powerOnWhenCasting: true, input: 0x2000)))
        // The gateway starts while a cast plays: found running, not started.
        driver.receiver(.playing)
        driver.open()
        // The adapter vanishes and returns.
        driver.handle(.bus(.closed))
        XCTAssertEqual(driver.status.connected, false)
        driver.open()
        // The receiver restarts with the cast still on.
        driver.snapshot.link = .reconnecting(retryInSeconds: 1)
        driver.handle(.snapshot(driver.snapshot))
        var connecting = GatewayState()
        connecting.link = .connected
        driver.handle(.snapshot(connecting))  // connected, receiver status not yet read
        // The receiver's status lists the app (and its volume) before the gateway has joined it.
        connecting.receiverRunsApp = true
        connecting.volume = 0.4
        driver.handle(.snapshot(connecting))
        driver.receiver(.playing)
        XCTAssertEqual(driver.tvCommands, [], "nothing wakes the TV or changes its input")
        let asked = driver.sent.map(\.body)
        XCTAssertEqual(asked.filter { $0 == .giveDevicePowerStatus }.count, 2, "asked once per opening")
        XCTAssertFalse(asked.contains { if case .setStreamPath = $0 { true } else { false } })
        // A cast that starts now does power the TV on.
        driver.receiver(.none, app: nil)
        driver.receiver(.playing, session: 2)
        XCTAssertEqual(driver.tvCommands, [.powerOn(selecting: 0x2000)])
    }

    /// The client applies the receiver's first status (naming the app that
    /// plays) one snapshot before it says connected: that app was found, not
    /// started (the board showed a power-on at start from exactly this).
    func testAnAppNamedWhileStillConnectingIsFoundRunningNotStarted() {
        var driver = TVDriver(TVMachineConfiguration(power: .init(powerOnWhenCasting: true, input: 0x2000)))
        var starting = GatewayState()
        starting.link = .connecting
        driver.handle(.snapshot(starting))
        starting.receiverRunsApp = true
        starting.appID = "CC1AD845"
        driver.handle(.snapshot(starting))
        starting.link = .connected
        driver.handle(.snapshot(starting))
        driver.receiver(.playing)
        driver.open()
        XCTAssertEqual(driver.tvCommands, [], "a cast found playing at start does not wake the TV")
    }

    func testIdleStandbyLeavesATVThatShowsAnotherInputOn() {
        var driver = TVDriver(TVMachineConfiguration(power: .init(input: 0x2000, standbyAfter: .seconds(60))))
        driver.open()
        driver.from(8, .activeSource(0x3000))
        driver.receiver(.none, app: nil)
        driver.advance(by: .seconds(61))
        XCTAssertEqual(driver.tvCommands, [])
    }

    // MARK: Knowing the TV

    func testLearnsTheTVFromItsAnswersAndBroadcasts() {
        var driver = TVDriver()
        driver.open()
        XCTAssertEqual(driver.sent.map(\.body), [.giveDevicePowerStatus, .giveDeviceVendorID, .giveOSDName, .requestActiveSource])
        XCTAssertEqual(driver.sent.map(\.destination), [0, 0, 0, 15])
        driver.fromTV(.reportPowerStatus(.on), to: 4)
        driver.fromTV(.deviceVendorID(0x00E091))
        driver.fromTV(.setOSDName("Living Room"), to: 4)
        driver.from(4, .activeSource(0x2000))
        XCTAssertEqual(driver.status.summary, "on, showing HDMI 2 (the Chromecast); \"Living Room\", vendor LG (00e091)")
        XCTAssertEqual(driver.status.json.serialized,
                       #"{"power":"on","input":"2.0.0.0","hdmi":2,"chromecast":true,"vendor":"00e091","vendorName":"LG","name":"Living Room"}"#)
        XCTAssertTrue(driver.effects.contains(.publish(driver.status)))
        driver.fromTV(.standby)
        XCTAssertEqual(driver.status.summary, "standby; \"Living Room\", vendor LG (00e091)")
        driver.handle(.bus(.closed))
        XCTAssertEqual(driver.status.json.serialized,
                       #"{"power":"unknown","input":null,"hdmi":null,"chromecast":null,"vendor":null,"vendorName":null,"name":null}"#)
    }

    func testAnUnknownVendorCommandIsLoggedOnceInHex() {
        var driver = TVDriver()
        driver.open()
        for _ in 0..<3 { driver.fromTV(.vendorCommand(opcode: 0x89, parameters: [0x0A, 0xFF]), to: 4) }
        let logs = driver.effects.compactMap { if case .log(_, let text) = $0 { text } else { nil } }
        XCTAssertEqual(logs.filter { $0.contains("vendor command") }, ["unknown CEC vendor command: 04:89:0a:ff"])
    }

    // MARK: System audio

    func testAnswersGiveAudioStatusWithTheCastVolumeAndAgainAfterLibcecsAnswer() {
        var driver = TVDriver(TVMachineConfiguration(audioSystem: true))
        driver.open(logical: 5)
        driver.receiver(.playing, volume: 0.37, muted: true)
        driver.clear()
        driver.fromTV(.giveAudioStatus, to: 5)
        let report = TVBusMessage(from: 5, to: 0, .reportAudioStatus(volume: 37, muted: true))
        XCTAssertEqual(driver.sent, [report])
        driver.advance(by: TVMachine.audioRepeatDelay - .milliseconds(1))
        XCTAssertEqual(driver.sent, [report])
        driver.advance(by: .milliseconds(1))
        XCTAssertEqual(driver.sent, [report, report], "repeated, so that the TV ends with the gateway's answer")
        driver.advance(by: .seconds(10))
        XCTAssertEqual(driver.sent.count, 2)
    }

    func testReportsEveryVolumeChangeToTheTV() {
        var driver = TVDriver(TVMachineConfiguration(audioSystem: true))
        driver.open(logical: 5)
        driver.receiver(.playing, volume: 0.4)
        driver.receiver(.playing, volume: 0.4)
        driver.receiver(.playing, volume: 0.45)
        driver.receiver(.playing, volume: 0.45, muted: true)
        XCTAssertEqual(driver.sent.filter { $0.destination == 0 }.map(\.body).suffix(3),
                       [.reportAudioStatus(volume: 40, muted: false), .reportAudioStatus(volume: 45, muted: false),
                        .reportAudioStatus(volume: 45, muted: true)])

        var playback = TVDriver()
        playback.open()
        playback.receiver(.playing, volume: 0.4)
        playback.receiver(.playing, volume: 0.5)
        playback.fromTV(.giveAudioStatus, to: 4)
        XCTAssertFalse(playback.sent.contains { if case .reportAudioStatus = $0.body { true } else { false } }, "only the audio system reports")
    }

    func testSystemAudioModeAsAnAudioSystem() {
        var driver = TVDriver(TVMachineConfiguration(audioSystem: true))
        driver.open(logical: 5)
        driver.receiver(.playing, volume: 0.2)
        driver.clear()
        driver.fromTV(.systemAudioModeRequest(0x2000), to: 5)
        driver.fromTV(.giveSystemAudioModeStatus, to: 5)
        driver.fromTV(.systemAudioModeRequest(nil), to: 5)
        driver.fromTV(.giveSystemAudioModeStatus, to: 5)
        driver.fromTV(.giveDevicePowerStatus, to: 5)
        XCTAssertEqual(driver.sent, [
            TVBusMessage(from: 5, to: 15, .setSystemAudioMode(true)),
            TVBusMessage(from: 5, to: 0, .reportAudioStatus(volume: 20, muted: false)),
            TVBusMessage(from: 5, to: 0, .systemAudioModeStatus(true)),
            TVBusMessage(from: 5, to: 15, .setSystemAudioMode(false)),
            TVBusMessage(from: 5, to: 0, .systemAudioModeStatus(false)),
            TVBusMessage(from: 5, to: 0, .reportPowerStatus(.on)),
        ])
        driver.fromTV(.setSystemAudioMode(true))
        driver.fromTV(.giveSystemAudioModeStatus, to: 5)
        XCTAssertEqual(driver.sent.last, TVBusMessage(from: 5, to: 0, .systemAudioModeStatus(true)))
    }
}
