import GatewayModel
import SystemSupport

/// The TV and the cast as one, as a pure reducer: an event (at an instant on
/// the gateway's clock) changes the state and yields effects for
/// `TVService` to carry out. No I/O, no clock: tests feed it events.
///
/// - Follows the TV from the bus: power, the input shown, vendor, name.
/// - Reacts to the TV: standby or leaving the Chromecast's input pauses the
///   cast (`[cec] on-tv-standby`, `on-input-away`); coming back may resume
///   what it paused (`on-input-back`, `on-tv-on`). What the gateway caused
///   itself (its standby, its power-on and input switch) never triggers them.
/// - Powers the TV on when casting starts and puts it in standby after the
///   idle time (`TVPowerPolicy`), but never wakes it or switches its input
///   otherwise: not at start, on a reload, or when the adapter or receiver returns.
/// - As the audio system, reports the Cast volume to the TV.
public struct TVMachine: Sendable {
    /// How long after the gateway's own power or input command the TV's
    /// answers count as its doing (a TV takes seconds to wake and may first
    /// show its last input).
    public static let ownChangeWindow = Duration.seconds(10)
    /// One PAUSE (or STOP) per burst of bus events.
    public static let reactionHoldOff = Duration.seconds(5)
    /// libcec answers <Give Audio Status> itself with "unknown" (0x7f), racing
    /// the gateway's answer: the answer is sent again after this, so the TV ends with it.
    public static let audioRepeatDelay = Duration.milliseconds(500)
    /// Distinct vendor commands logged, at most.
    static let vendorLogLimit = 64

    public let configuration: TVMachineConfiguration
    var state: TVMachineState
    var now = Duration.zero
    private var effects: [TVMachineEffect] = []

    public init(configuration: TVMachineConfiguration) {
        self.configuration = configuration
        state = TVMachineState(configuration: configuration)
    }

    var reactions: TVReactions { configuration.reactions }
    var castInput: UInt16? { configuration.power.input }

    /// Handles `event`, which came at `now`, and returns what to do, in order.
    public mutating func handle(_ event: TVMachineEvent, at now: Duration) -> [TVMachineEffect] {
        self.now = now
        let before = state.tv
        switch event {
        case .bus(.opened(let physicalAddress, let logicalAddress)): opened(physicalAddress: physicalAddress, logicalAddress: logicalAddress)
        case .bus(.closed): closed()
        case .bus(.received(let message)): received(message)
        case .snapshot(let snapshot): observe(snapshot)
        case .command(let command): carryOut(command)
        case .timerFired(let id): timerFired(id)
        }
        if state.tv != before { emit(.publish(state.tv)) }
        rescheduleTimer()
        let done = effects
        effects = []
        return done
    }

    mutating func emit(_ effect: TVMachineEffect) {
        effects.append(effect)
    }

    mutating func log(_ level: LogLevel, _ text: String) {
        effects.append(.log(level, text))
    }

    // MARK: The adapter

    private mutating func opened(physicalAddress: UInt16, logicalAddress: UInt8) {
        state.tv = TVStatus()
        state.tv.connected = true
        state.tv.castInput = castInput
        state.tv.ownAddress = physicalAddress == 0xFFFF ? nil : physicalAddress
        state.ownLogicalAddress = logicalAddress
        state.systemAudioMode = false
        state.reportedAudio = nil
        // Asked once per opening; later changes come as broadcasts. Nothing
        // here wakes the TV or changes its input.
        for body: TVBusMessage.Body in [.giveDevicePowerStatus, .giveDeviceVendorID, .giveOSDName] {
            send(body, to: TVBusMessage.tv)
        }
        send(.requestActiveSource, to: TVBusMessage.broadcast)
        // The audio system's volume, for the TV's bar, without being asked.
        if configuration.audioSystem { reportAudio(to: TVBusMessage.tv) }
    }

    private mutating func closed() {
        state.tv = TVStatus()
        state.tv.castInput = castInput
        state.ownLogicalAddress = nil
        state.audioRepeat = nil
        state.ownPowerChangeUntil = nil
        state.ownInputChangeUntil = nil
    }

    mutating func send(_ body: TVBusMessage.Body, to destination: UInt8) {
        // The CEC source fills in the initiator.
        emit(.send(TVBusMessage(from: state.ownLogicalAddress ?? TVBusMessage.broadcast, to: destination, body)))
    }

    // MARK: The gateway's own commands

    private mutating func carryOut(_ command: TVCommand) {
        handleOwn(command)
    }

    func isOwn(_ until: Duration?) -> Bool {
        guard let until else { return false }
        return now < until
    }

    // MARK: Timer

    private mutating func timerFired(_ id: Int) {
        guard let timer = state.timer, timer.id == id else { return }
        state.timer = nil
        if let repeatDue = state.audioRepeat, repeatDue.due <= now {
            state.audioRepeat = nil
            reportAudio(to: repeatDue.to)
        }
        checkPowerPolicy()
    }

    /// One timer for the earliest deadline: the idle standby, the repeated audio answer.
    private mutating func rescheduleTimer() {
        let deadlines = [state.powerPolicy.nextCheck(after: now), state.audioRepeat?.due].compactMap { $0 }
        guard let deadline = deadlines.min() else {
            if state.timer != nil {
                state.timer = nil
                emit(.cancelTimer)
            }
            return
        }
        if state.timer?.deadline == deadline { return }
        state.nextTimerID += 1
        state.timer = (state.nextTimerID, deadline)
        emit(.armTimer(id: state.nextTimerID, deadline: deadline))
    }
}
