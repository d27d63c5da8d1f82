import GatewayModel

/// The TV machine's configuration: the `[cec]` keys it follows.
public struct TVMachineConfiguration: Sendable, Equatable {
    public var power: TVPowerPolicy.Settings
    public var reactions: TVReactions
    /// The gateway is the audio system (logical address 5): it answers the TV's audio questions.
    public var audioSystem: Bool

    public init(power: TVPowerPolicy.Settings = .init(), reactions: TVReactions = .init(), audioSystem: Bool = false) {
        self.power = power
        self.reactions = reactions
        self.audioSystem = audioSystem
    }
}

/// Everything the TV machine remembers between events.
struct TVMachineState: Sendable {
    var tv = TVStatus()
    /// The gateway's logical address on the bus while the adapter is open.
    var ownLogicalAddress: UInt8?

    // The receiver, from the latest snapshot.
    var player = GatewayState.Player.none
    var mediaSessionID: Int?
    var volume: Int?
    var muted = false
    /// The receiver's status has been read since the link came up: from then
    /// on an app that appears is a cast that starts, not one found running.
    var receiverBaseline = false
    var appRunning = false
    var linkConnected = false
    var powerPolicy: TVPowerPolicy

    /// When the machine last sent PAUSE or STOP for the TV: one per burst.
    var reactionSentAt: Duration?
    /// The gateway paused the cast for the TV: `play` reactions may resume it.
    var pausedByGateway = false

    /// Until then, power changes are the gateway's own doing (its standby, its power-on).
    var ownPowerChangeUntil: Duration?
    /// Until then, input changes are the gateway's own doing (its input switch, a TV waking on its last input).
    var ownInputChangeUntil: Duration?

    // System audio (the audio-system role).
    var systemAudioMode = false
    /// The last <Report Audio Status> sent to the TV unasked.
    var reportedAudio: (volume: Int, muted: Bool)?
    /// The repeat of an answer to <Give Audio Status>, due then, to this initiator.
    var audioRepeat: (due: Duration, to: UInt8)?

    /// Vendor commands already logged (each distinct one once).
    var loggedVendorCommands: Set<[UInt8]> = []

    var timer: (id: Int, deadline: Duration)?
    var nextTimerID = 0

    init(configuration: TVMachineConfiguration) {
        powerPolicy = TVPowerPolicy(configuration.power)
        tv.castInput = configuration.power.input
    }
}
