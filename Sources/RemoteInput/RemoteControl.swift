import GatewayModel
import SystemSupport

/// Routes key events from every source through its keymap and the
/// scheduler. Knows nothing of Cast: it only produces actions.
public final class RemoteControl: Sendable {
    /// Called for every event with the action it mapped to (or nil).
    public typealias Record = @Sendable (InputEvent, Action?) async -> Void

    private let keymaps: [InputEvent.Source: Keymap]
    private let scheduler: ActionScheduler
    private let record: Record
    private let logger = Logger(label: "remote")

    public init(keymaps: [InputEvent.Source: Keymap], scheduler: ActionScheduler, record: @escaping Record) {
        self.keymaps = keymaps
        self.scheduler = scheduler
        self.record = record
    }

    /// Maps and schedules one event. Console events use the CEC keymap for
    /// CEC names and the Linux-input keymap for `KEY_` names.
    public func handle(_ event: InputEvent) async {
        let source: InputEvent.Source = event.source == .console ? (event.key.hasPrefix("KEY_") ? .evdev : .cec) : event.source
        let action = keymaps[source]?.action(for: event)
        await record(event, action)
        guard let action else {
            logger.debug("\(event.description): not mapped")
            return
        }
        logger.debug("\(event.description) -> \(action.name)")
        await scheduler.submit(action, isRepeat: event.isRepeat)
    }

    /// Consumes a source's events until it finishes.
    public func follow(_ events: AsyncStream<InputEvent>) -> Task<Void, Never> {
        Task {
            for await event in events { await self.handle(event) }
        }
    }
}
