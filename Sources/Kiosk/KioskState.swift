import GatewayModel
import SystemSupport

/// All the kiosk remembers between events: what it is doing (`mode`), where
/// the loop is, what the receiver last showed, and the one operation on the
/// receiver in flight. Only `KioskMachine` changes it.
struct KioskState: Sendable {
    /// What the player is doing.
    enum Mode: Equatable, Sendable {
        /// Not playing: not started yet (`start = key|never`), stopped, at the end (`loop = false`), nothing to play.
        case waiting(String)
        /// Outside the schedule.
        case closed
        /// The current item is to be loaded (`attempt` of `maximumAttempts`), not before `notBefore`.
        case loading(attempt: Int, notBefore: Duration?)
        case playing(Playing)
        /// The welcome app: to be launched, or showing (until the deadline, or for good without a playlist).
        case welcome(until: Duration?, launched: Bool)
        /// Someone else has the screen.
        case guest(Guest)
        /// Every item failed: waiting before the next round.
        case backingOff(until: Duration)
    }

    struct Playing: Equatable, Sendable {
        var itemIndex: Int
        /// The URL the LOAD named (the receiver reports it as contentId).
        var contentID: String
        var sessionID: Int?
        /// A slide's end.
        var imageEnds: Duration?
        /// The receiver has shown it playing (the item is healthy).
        var confirmed = false
        /// The newest snapshot showing this item. A guest's launch clears the
        /// media state, sometimes before the interruption itself is seen.
        var lastStatus: GatewayState?
    }

    struct Guest: Equatable, Sendable {
        /// A guest's app or media was seen (not merely ours stopped from a remote).
        var seen: Bool
        /// Since when nothing has been playing.
        var idleSince: Duration?
        var appName: String?
        var since: Duration
        /// Entered at start because the app's media could not be read in time:
        /// once it is, the kiosk's own item hands the screen back at once.
        var unverified = false
    }

    /// The one operation on the receiver (or media server) in flight: no other starts before its outcome.
    enum Operation: Equatable, Sendable {
        case loading(id: Int, itemIndex: Int, item: PlaylistItem, attempt: Int, startAt: Double, epoch: Int)
        case launching(id: Int, until: Duration?, epoch: Int)
        /// Asking for the local items' URLs, to tell whether `contentID` is the kiosk's own.
        case recognising(id: Int, contentID: String, purpose: Recognition, epoch: Int)
    }

    /// What a recognition decides.
    enum Recognition: Equatable, Sendable {
        /// The start's first look at `snapshot`.
        case startup(GatewayState)
        /// Whether an unverified guest (see `Guest.unverified`) is the kiosk's own item.
        case guest(GatewayState)
    }

    var playlist = Playlist(items: [])
    var mode = Mode.waiting("starting")
    var latest = GatewayState()
    /// Bumped by every change of mode a command or an event decides, so the
    /// outcome of an operation started before is not applied over it.
    var epoch = 0
    /// Whether the loop should run (start = boot, a key, `playlist start`), schedule permitting.
    var loopRequested = false
    /// Whether `.started` has been handled (the playlist and saved state are known).
    var hasStarted = false
    /// Where the next LOAD starts (a resumed or interrupted item).
    var pendingStart = 0.0
    /// The saved state found at start, until the first LOAD.
    var resumeFrom: KioskSavedState?
    /// A start (boot, service restart) has yet to learn whether a guest is on
    /// screen: nothing is loaded before it has.
    var startupPending = false
    /// Until then a start waits for the media status of the app on screen; set
    /// at the link's first connection, not at the player's start, so a slow
    /// connection (discovery, TLS) does not use the time up.
    var startupLookUntil: Duration?
    var consecutiveFailures = 0
    /// The media session of the kiosk's previous item: a snapshot of it that
    /// arrives after the next LOAD is stale, not a guest.
    var previousSessionID: Int?
    var backoff = Backoff(initial: .seconds(30), maximum: .seconds(600))
    var backingOffUntil = Duration.zero
    /// The problem the kiosk reported to the gateway (every item failing).
    var lastProblem: String?
    /// The items (and the one playing) the kiosk last showed in the gateway's state.
    var shownItems: KioskItems?
    /// The playlist's items `shownItems` names (to rename them only when they change).
    var shownItemsFrom: [PlaylistItem] = []
    /// A graceful stop was handled: the kiosk plays nothing any more.
    var stopped = false
    /// The kiosk's item a guest interrupted: the guest playing it again is still the guest.
    var lastContentID: String?
    var operation: Operation?
    var nextOperationID = 0
    var nextSave: Duration?
    var lastSaved: KioskSavedState?
    /// False once the player is dropped without a graceful stop (tests: kill -9).
    var savesEnabled = true
    var standbyUnavailableLogged = false
    /// The armed timer.
    var timer: (id: Int, deadline: Duration)?
    var nextTimerID = 0
    /// Shuffles and the backoff's jitter.
    var generator: SeededGenerator

    init(generator: SeededGenerator) {
        self.generator = generator
    }
}
