import GatewayModel
import SystemSupport

/// What the TV machine asks `TVService` to do.
public enum TVMachineEffect: Sendable, Equatable {
    /// An action on the receiver: `pause`, `stop` or `play`.
    case perform(Action)
    /// To the TV over the CEC source.
    case powerOn(selecting: UInt16?)
    case standby
    case selectInput(UInt16)
    case send(TVBusMessage)
    /// What the gateway shows about the TV.
    case publish(TVStatus)
    /// Arms the one timer at `deadline` (on the gateway's clock), replacing the one before; it fires as `.timerFired(id:)`.
    case armTimer(id: Int, deadline: Duration)
    case cancelTimer
    case log(LogLevel, String)
}
