/// One snapshot of what the gateway is doing, published to every output
/// (console, LEDs, logs). Outputs render it; they never reach into the core.
public struct GatewayState: Sendable, Equatable {
    public enum Link: Sendable, Equatable {
        /// No device configured or selected.
        case noDevice
        case connecting
        case connected
        /// Lost or unreachable; retrying in this many seconds.
        case reconnecting(retryInSeconds: Double)
        /// The device named in the config is not on the network (mDNS) right now.
        case searching(String)

        /// The link's name in JSON (console, MQTT): `no-device`, `connecting`, ...
        public var name: String {
            switch self {
            case .noDevice: "no-device"
            case .connecting: "connecting"
            case .connected: "connected"
            case .reconnecting: "reconnecting"
            case .searching: "searching"
            }
        }
    }

    public enum Player: String, Sendable {
        case none = "NONE"
        case idle = "IDLE"
        case playing = "PLAYING"
        case paused = "PAUSED"
        case buffering = "BUFFERING"
    }

    /// A failure worth showing, with a stable code (e.g. `device-unavailable`).
    public struct Problem: Sendable, Equatable {
        public var code: String
        public var message: String
        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    public var link: Link = .noDevice
    /// Friendly name or `host:port` of the target device.
    public var deviceName: String = ""
    public var deviceAddress: String = ""
    /// The foreground receiver app, if any.
    public var appName: String?
    public var appID: String?
    public var player: Player = .none
    public var title: String?
    public var subtitle: String?
    /// Position in seconds at `positionTimestamp`; advances at `playbackRate` while playing.
    public var position: Double?
    /// Seconds on the gateway's monotonic clock when `position` was reported.
    public var positionTimestamp: Double = 0
    public var playbackRate: Double = 1
    public var duration: Double?
    /// The media's content id (its URL) exactly as the receiver reports it,
    /// for comparison only (the kiosk tells its own media from a guest's):
    /// not escaped, so outputs show `title` instead.
    public var contentID: String?
    /// The receiver's media session; a new LOAD (from anyone) starts a new one.
    public var mediaSessionID: Int?
    /// Whether the media status of the foreground app has been read (after
    /// joining it); until then `player` says nothing about its media.
    public var mediaKnown = false
    /// Why the player is IDLE: `FINISHED`, `CANCELLED`, `INTERRUPTED`, `ERROR`.
    public var idleReason: String?
    /// Device volume 0...1.
    public var volume: Double?
    public var muted: Bool = false
    public var lastError: Problem?
    /// Cast devices seen on the network, sorted by name.
    public var devices: [CastDevice] = []
    /// Why discovery does not work right now (nil when it does or is not used).
    public var discoveryProblem: String?
    /// Remote inputs that are configured but not working, by source (`lirc`, `cec`).
    public var inputProblems: [String: String] = [:]
    /// Services that are configured but not working, by name (`mqtt`).
    public var serviceProblems: [String: String] = [:]
    /// Services that failed and are being restarted (or stay stopped), by
    /// name, as the service group reports them: until they recover.
    public var serviceFailures: [String: String] = [:]
    /// Why the kiosk loop cannot play (every item failed, the playlist is
    /// unreadable); nil when it plays or is not configured.
    public var kioskProblem: String?
    /// The kiosk's items and the one it plays; nil without a kiosk (or before it has read its playlist).
    public var kioskItems: KioskItems?
    /// A configuration file that a reload refused (the running one stays in force).
    public var configProblem: String?
    /// Device authentication of the receiver: off, pending, ok, ok (audio only), failed (CODE).
    public var authentication = "off"
    /// Why the receiver failed device authentication against the configured
    /// trust anchors (nil when it passed, or when no anchors are configured).
    public var authenticationProblem: String?
    /// The receiver's certificate marks it audio-only: send no video.
    public var audioOnly = false
    /// Whether the receiver's own status lists an app (other than its idle
    /// screen): known from its first RECEIVER_STATUS, before the gateway
    /// joins the app (`appID`); nil until that status is read.
    public var receiverRunsApp: Bool?
    /// The TV as the CEC bus shows it; nil when HDMI-CEC is not set up.
    public var tv: TVStatus?
    /// What happened to the last A/B update (commit-slot's report); nil when there is none.
    public var update: UpdateReport?
    /// How an update asked for from the fleet is going (the root helper's
    /// progress file); nil when none was asked for since the box booted.
    public var updateProgress: UpdateProgress?
    /// The bundle the fleet announces (`<prefix>/all/update`): `update latest` installs it.
    public var updateOffer: UpdateRequest?

    /// The longest title, name or message a snapshot carries (the core cuts longer ones).
    public static let maximumTextLength = 256

    public init() {}

    /// The volume as a whole percentage 0...100 (clamped; nil when unknown or not a number).
    public var volumePercent: Int? {
        guard let volume, !volume.isNaN else { return nil }
        return Int((min(max(volume, 0), 1) * 100).rounded())
    }

    /// The position at monotonic time `now`, extrapolated while playing.
    public func position(at now: Double) -> Double? {
        guard var value = position else { return nil }
        if player == .playing { value += (now - positionTimestamp) * playbackRate }
        if let duration, duration > 0 { value = min(value, duration) }
        return max(value, 0)
    }
}
