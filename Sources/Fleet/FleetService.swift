#if canImport(Glibc)
import Glibc
#endif
import GatewayModel
import ServiceLifecycle
import Synchronization
import SystemSupport

/// The gateway's MQTT client for fleet control: publishes the gateway's
/// state, availability and Home Assistant discovery, and runs commands
/// received on the room's, the groups' and the all-rooms `cmd` topics.
///
/// It knows nothing of Cast: state comes in as `GatewayState` snapshots,
/// commands go out as console command lines through `FleetCommandHandler`.
/// Cancelling `run()` publishes `offline` and disconnects cleanly.
public final class FleetService: Service, Sendable {
    public let name = "mqtt"
    public let settings: FleetSettings
    let handler: any FleetCommandHandler
    let states: @Sendable () -> AsyncStream<GatewayState>
    let extras: FleetStatusExtras
    let timeSource: any TimeSource
    let makeClient: @Sendable (FleetSettings) -> any MQTTClient
    /// What the Home Assistant device shows beyond `[mqtt]`.
    let context: HomeAssistantContext
    /// A fresh subscription to the remote keys (for Home Assistant events); nil: none.
    let keys: (@Sendable () -> AsyncStream<KeyPress>)?
    /// Seconds since the epoch, now (for `positionUpdatedAt`).
    let wallTime: @Sendable () -> Double
    let onStatusChange: (@Sendable (FleetStatus) -> Void)?
    /// Told the bundle the fleet announces on `<prefix>/all/update` (nil: none, or not valid).
    let onUpdateOffer: @Sendable (UpdateRequest?) async -> Void
    private let current = Mutex(FleetStatus())

    /// At most one state publish per interval; the newest state always goes out.
    public static let publishInterval: Duration = .milliseconds(250)
    /// A connection attempt without an answer is given up after this long.
    public static let connectTimeout: Duration = .seconds(30)
    /// How long a failed command shows in the state's `problem`.
    public static let commandFailureShown: Duration = .seconds(300)
    /// Home Assistant's birth message resends the configs at most this often
    /// (they are retained: a restarted Home Assistant reads them from the broker).
    public static let rediscoveryInterval: Duration = .seconds(300)

    /// - Parameters:
    ///   - states: a fresh subscription to the gateway's state (called once per `run()`).
    ///   - onStatusChange: told when the connection comes up, goes down or
    ///     its problem changes (for `status` and sd_notify).
    ///   - makeClient: the MQTT library seam; tests pass a fake.
    public init(settings: FleetSettings, handler: any FleetCommandHandler,
                states: @escaping @Sendable () -> AsyncStream<GatewayState>, extras: FleetStatusExtras,
                timeSource: any TimeSource = SystemTimeSource(),
                onStatusChange: (@Sendable (FleetStatus) -> Void)? = nil,
                context: HomeAssistantContext = HomeAssistantContext(),
                keys: (@Sendable () -> AsyncStream<KeyPress>)? = nil,
                wallTime: @escaping @Sendable () -> Double = FleetService.systemWallTime,
                onUpdateOffer: @escaping @Sendable (UpdateRequest?) async -> Void = { _ in },
                makeClient: @escaping @Sendable (FleetSettings) -> any MQTTClient = { MosquittoClient(settings: $0) }) {
        self.settings = settings
        self.handler = handler
        self.states = states
        self.extras = extras
        self.timeSource = timeSource
        self.onStatusChange = onStatusChange
        self.makeClient = makeClient
        self.context = context
        self.keys = keys
        self.wallTime = wallTime
        self.onUpdateOffer = onUpdateOffer
    }

    /// The system's real-time clock, in seconds since the epoch.
    public static let systemWallTime: @Sendable () -> Double = {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Whether the broker connection is up, and if not, why.
    public var status: FleetStatus { current.withLock { $0 } }

    public func run() async throws {
        let session = FleetSession(service: self, client: makeClient(settings))
        await session.run()
    }

    func update(_ status: FleetStatus) {
        let changed = current.withLock { current -> Bool in
            guard current != status else { return false }
            current = status
            return true
        }
        if changed { onStatusChange?(status) }
    }
}

/// The fleet connection as `status` shows it.
public struct FleetStatus: Sendable, Equatable {
    public var connected: Bool
    /// Why the broker cannot be used right now (bad password, unreachable,
    /// unreadable CA file...), nil while connected or before the first attempt.
    public var problem: String?

    public init(connected: Bool = false, problem: String? = nil) {
        self.connected = connected
        self.problem = problem
    }

    /// `mqtt: connected` / `mqtt: <problem>`, for the status command.
    public var line: String {
        if connected { return "mqtt: connected" }
        return "mqtt: " + (problem ?? "connecting")
    }
}
