/// When to switch the TV on and off around casting (HDMI-CEC).
///
/// - When a cast session starts (an app appears), power the TV on and select
///   its input (`powerOnWhenCasting`).
/// - After `standbyAfter` with no app running, put the TV in standby once.
/// Pure: feed it states and times, it answers what to do.
public struct TVPowerPolicy: Sendable {
    public enum Command: Sendable, Equatable {
        case powerOn
        case standby
    }

    /// The `[cec]` keys that drive the policy.
    public struct Settings: Sendable, Equatable {
        /// Power the TV on when casting starts.
        public var powerOnWhenCasting = false
        /// The TV input to select then, as a physical address (0x1000 = 1.0.0.0).
        public var input: UInt16?
        /// Put the TV in standby after this long with nothing cast (nil: never).
        public var standbyAfter: Duration?

        public init(powerOnWhenCasting: Bool = false, input: UInt16? = nil, standbyAfter: Duration? = nil) {
            self.powerOnWhenCasting = powerOnWhenCasting
            self.input = input
            self.standbyAfter = standbyAfter
        }

        /// Whether the policy ever does anything.
        public var isActive: Bool { powerOnWhenCasting || standbyAfter != nil }
    }

    public var powerOnWhenCasting: Bool
    /// nil: never put the TV in standby.
    public var standbyAfter: Duration?
    private var hadApp = false
    private var idleSince: Duration?
    private var standbySent = false

    public init(powerOnWhenCasting: Bool, standbyAfter: Duration?) {
        self.powerOnWhenCasting = powerOnWhenCasting
        self.standbyAfter = standbyAfter
    }

    public init(_ settings: Settings) {
        self.init(powerOnWhenCasting: settings.powerOnWhenCasting, standbyAfter: settings.standbyAfter)
    }

    /// Updates with whether an app runs at `now`; returns a command to send, if any.
    public mutating func update(appRunning: Bool, connected: Bool, now: Duration) -> Command? {
        defer { hadApp = appRunning }
        if appRunning {
            idleSince = nil
            standbySent = false
            return !hadApp && powerOnWhenCasting ? .powerOn : nil
        }
        guard connected, let standbyAfter else { return nil }
        let since = idleSince ?? now
        idleSince = since
        if !standbySent, now - since >= standbyAfter {
            standbySent = true
            return .standby
        }
        return nil
    }

    /// Takes an app found running (or not) as the starting point, without
    /// calling it a cast that starts: the gateway starts, or reconnects, while
    /// something plays, and the TV is left as it is.
    public mutating func assume(appRunning: Bool) {
        hadApp = appRunning
    }

    /// When the next check is due (for a timer), or nil.
    public func nextCheck(after now: Duration) -> Duration? {
        guard let standbyAfter, let idleSince, !standbySent else { return nil }
        return max(idleSince + standbyAfter, now)
    }
}
