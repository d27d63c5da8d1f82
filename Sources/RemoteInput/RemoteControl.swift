import Commands
import ServiceLifecycle
import Synchronization
import GatewayModel
import SystemSupport

/// Routes key events from every source through its keymap and the
/// scheduler. Knows nothing of Cast: it only produces actions. As a
/// `Service` it consumes the one input stream that every source feeds.
/// It sees every key, so it keeps the recent ones (`keys`, status).
public final class RemoteControl: Service, InputHandler, Sendable {
    /// Called for every event with the action it mapped to (or nil).
    public typealias Record = @Sendable (InputEvent, Action?) async -> Void
    /// One key as `keys` lists it: the event and the action it mapped to.
    public typealias RecentKey = (event: InputEvent, action: Action?)

    /// How many recent keys are kept.
    public static let recentLimit = 20

    public let name = "remote"
    /// Not restarted: the input stream it consumes ends with its first
    /// consumer, and its scheduler stops with it. It cannot fail on its own;
    /// if it ever ends unasked, the group reports it, and it stays stopped.
    public var restartsAfterFailure: Bool { false }
    private let keymaps: Mutex<[InputEvent.Source: Keymap]>
    private let scheduler: ActionScheduler
    private let record: Record
    private let events: AsyncStream<InputEvent>?
    private let recent = Mutex<[RecentKey]>([])
    private let logger = Logger(label: "remote")

    public init(keymaps: [InputEvent.Source: Keymap], scheduler: ActionScheduler, events: AsyncStream<InputEvent>? = nil,
                record: @escaping Record = { _, _ in }) {
        self.keymaps = Mutex(keymaps)
        self.scheduler = scheduler
        self.events = events
        self.record = record
    }

    /// Replaces the keymaps (a live reload); keys pressed from now on use them.
    public func setKeymaps(_ newKeymaps: [InputEvent.Source: Keymap]) {
        keymaps.withLock { $0 = newKeymaps }
    }

    /// The last `recentLimit` keys, oldest first, with the actions they mapped to.
    public var recentKeys: [RecentKey] { recent.withLock { $0 } }

    /// Handles the input stream until cancelled, then stops the scheduler:
    /// nothing a key asked for is performed after the stop (the action in
    /// progress is awaited; the Cast session, stopped after this, still runs).
    public func run() async throws {
        guard let events else { return }
        for await event in events { await handle(event) }
        await scheduler.stop()
    }

    /// Maps and schedules one event. Console events use the CEC keymap for
    /// CEC names and the Linux-input keymap for `KEY_` names.
    public func handle(_ event: InputEvent) async {
        let source: InputEvent.Source = event.source == .console ? (event.key.hasPrefix("KEY_") ? .evdev : .cec) : event.source
        let action = keymaps.withLock { $0[source]?.action(for: event) }
        recent.withLock { keys in
            keys.append((event, action))
            if keys.count > RemoteControl.recentLimit { keys.removeFirst(keys.count - RemoteControl.recentLimit) }
        }
        await record(event, action)
        guard let action else {
            logger.debug("\(event.description): not mapped")
            return
        }
        logger.debug("\(event.description) -> \(action.name)")
        await scheduler.submit(action, isRepeat: event.isRepeat)
    }
}
