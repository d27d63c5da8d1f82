import GatewayModel

/// Everything the kiosk's machine reacts to: snapshots, commands, its timer,
/// and the outcome of each effect the player carried out for it.
public enum KioskEvent: Sendable {
    /// The player starts: the playlist as read (or why not), the saved state, the configured app id.
    case started(KioskStartup)
    /// A config reload: the gateway's `[cast] app-id` may have changed.
    case reconfigured(castAppID: String)
    case snapshot(GatewayState)
    /// The deadline armed as `id` is reached.
    case timerFired(id: Int)
    /// The LOAD `id` (an `.load` effect) ended.
    case loaded(id: Int, KioskLoadOutcome)
    /// The welcome app's launch `id` ended.
    case launched(id: Int, KioskLaunchOutcome)
    /// The media server's URLs of the playlist's local items (`.locate`), by item index; missing: cannot be served.
    case located(id: Int, urls: [Int: String])
    case command(KioskCommand)
    /// Checkout's steps on the gateway are done (`.clearGuest`): what worked and what did not.
    case guestCleared(done: [String], failures: [KioskProblem])
    /// TV standby was due, but no HDMI-CEC adapter is set up.
    case tvControlMissing
    /// A graceful stop: the position is saved.
    case stopping
    /// Dropped as by `kill -9`: nothing more is saved (tests).
    case dropped
}

/// What a start found.
public struct KioskStartup: Sendable {
    public var playlist: Result<Playlist, PlaylistError>
    public var saved: KioskSavedState?
    public var castAppID: String

    public init(playlist: Result<Playlist, PlaylistError>, saved: KioskSavedState?, castAppID: String) {
        self.playlist = playlist
        self.saved = saved
        self.castAppID = castAppID
    }
}

/// How a LOAD ended.
public enum KioskLoadOutcome: Sendable, Equatable {
    /// Loaded `url`; `state` is the gateway's state just after (its media session, if already known).
    case loaded(url: String, state: GatewayState)
    /// The item cannot be cast at all (a local file without a media server): not retried.
    case unservable(String)
    /// Not sent: the link to the receiver is down.
    case linkDown(String)
    /// The receiver refused or failed it.
    case failed(String)
}

public enum KioskLaunchOutcome: Sendable, Equatable {
    case launched
    case linkDown(String)
    case failed(String)
}

/// The console's and MQTT's commands (`playlist ...`, `checkout`) and play keys.
public enum KioskCommand: Sendable {
    case startLoop
    case stopLoop
    case skip(by: Int)
    /// `playlist play N`: item N, from 1.
    case play(item: Int)
    /// A playlist read afresh (`playlist reload`, a config reload).
    case reload(Playlist)
    case checkout
    case key(Action?)
}
