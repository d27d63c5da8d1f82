import GatewayCore
import GatewayModel
import SystemSupport

/// What the kiosk's machine asks the player to do. Effects that talk to the
/// receiver end in an event carrying their outcome and `id`.
public enum KioskEffect: Sendable, Equatable {
    /// LOAD `item` from `startTime` s; ends in `.loaded(id:)`.
    case load(id: Int, item: PlaylistItem, startTime: Double)
    /// Launch the welcome app; ends in `.launched(id:)`.
    case launchWelcome(id: Int, appID: String)
    /// Ask the media server for the URLs of these local items (by index); ends in `.located(id:)`.
    case locate(id: Int, paths: [Int: String])
    /// Stop the app on the TV; a failure fails the command (`playlist stop`) or is only logged.
    case stopApp(failsCommand: Bool)
    /// TV standby over HDMI-CEC (`.tvControlMissing` without an adapter).
    case tvStandby
    /// Checkout's steps on the gateway: stop the app on screen, forget typed credentials, set the volume; ends in `.guestCleared`.
    case clearGuest(volume: Int)
    case save(KioskSavedState)
    /// Wait until every save asked for is on storage.
    case flushSaves
    /// The kiosk's problem in the gateway's state (nil: none).
    case reportProblem(String?)
    /// The kiosk's items and the one it plays, in the gateway's state.
    case showItems(KioskItems)
    /// Arms the one timer at `deadline`, replacing the one armed before; it fires as `.timerFired(id:)`.
    case armTimer(id: Int, deadline: Duration)
    case cancelTimer(id: Int)
    case log(LogLevel, String)
    /// The answer to the command being handled.
    case reply(KioskReply)
    case refuse(GatewayError)
}
