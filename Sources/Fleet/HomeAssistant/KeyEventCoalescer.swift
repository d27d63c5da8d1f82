import GatewayModel
import JSON
import SystemSupport

/// Remote keys as Home Assistant events, bounded: a press is one event at
/// once; a held key's repeats are counted and reported at most once per
/// `heldInterval` (`"held":true` with the count so far), not 30 messages a
/// second; a storm of presses is cut to `burst` at once and `rate` per
/// second after that (the rest counted in the next event's `dropped`).
/// Pure: times come in, events go out, so tests run it on a manual clock.
struct KeyEventCoalescer {
    static let heldInterval: Duration = .seconds(1)
    static let rate = 10.0
    static let burst = 20.0

    /// The declared event types; any other key is sent as `other`.
    let eventTypes: Set<String>
    private var held: (press: KeyPress, repeats: Int, reported: Int, due: Duration?)?
    private var tokens = KeyEventCoalescer.burst
    private var refilledAt: Duration?
    private var dropped = 0

    init(eventTypes: [String]) {
        self.eventTypes = Set(eventTypes)
    }

    /// When `due(at:)` has something to send, if ever.
    var deadline: Duration? { held?.due }

    /// The events to publish for `press`, arriving at `now`.
    mutating func receive(_ press: KeyPress, at now: Duration) -> [JSONValue] {
        if press.event.isRepeat, var current = held, current.press.event.key == press.event.key,
           current.press.event.source == press.event.source {
            current.repeats += 1
            if current.due == nil { current.due = now + KeyEventCoalescer.heldInterval }
            held = current
            return []
        }
        var events = flushHeld()
        refill(at: now)
        guard tokens >= 1 else {
            dropped += 1
            held = nil
            return events
        }
        tokens -= 1
        events.append(event(press, held: false, repeats: 0))
        held = (press, 0, 0, nil)
        return events
    }

    /// The held-key report that is due at `now`, if any.
    mutating func due(at now: Duration) -> [JSONValue] {
        guard let current = held, let due = current.due, now >= due else { return [] }
        return flushHeld()
    }

    private mutating func flushHeld() -> [JSONValue] {
        guard var current = held, current.repeats > current.reported else { return [] }
        current.reported = current.repeats
        current.due = nil
        held = current
        return [event(current.press, held: true, repeats: current.repeats)]
    }

    private mutating func refill(at now: Duration) {
        if let last = refilledAt {
            tokens = min(KeyEventCoalescer.burst, tokens + (now - last).seconds * KeyEventCoalescer.rate)
        }
        refilledAt = now
    }

    private mutating func event(_ press: KeyPress, held: Bool, repeats: Int) -> JSONValue {
        let key = press.event.key
        var members: JSONObject = [
            "event_type": .string(eventTypes.contains(key) ? key : HomeAssistantContext.otherKey),
            "key": .string(key),
            "source": .string(press.event.source.rawValue),
            "mapped": .bool(press.mapped),
            "held": .bool(held),
            "repeats": .int(repeats),
        ]
        if let remote = press.event.remote { members["remote"] = .string(remote) }
        if !held, dropped > 0 {
            members["dropped"] = .int(dropped)
            dropped = 0
        }
        return .object(members)
    }
}
