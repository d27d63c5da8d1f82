import GatewayModel

/// Everything the TV machine reacts to.
public enum TVMachineEvent: Sendable, Equatable {
    /// The CEC source's news: adapter open or closed, a message from the bus.
    case bus(TVBusEvent)
    /// The gateway's state changed (player, volume, app, link).
    case snapshot(GatewayState)
    /// The gateway asks the TV for something itself (a command, a key, the kiosk).
    case command(TVCommand)
    /// The deadline armed as `id` is reached.
    case timerFired(id: Int)
}

/// What the gateway itself asks of the TV: the machine carries it out and
/// knows that what the TV does next was the gateway's doing.
public enum TVCommand: Sendable, Equatable {
    case powerOn(selecting: UInt16?)
    case standby
    case selectInput(UInt16)
}
