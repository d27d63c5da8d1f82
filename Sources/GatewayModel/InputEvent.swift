/// One key event from a remote: what the input sources produce and the
/// keymaps consume. Sources know nothing of Cast; the core knows nothing of
/// libcec or lircd.
public struct InputEvent: Sendable, Equatable {
    public enum Source: String, Sendable {
        case cec
        case lirc
        case evdev
        /// Typed at the console or demo prompt (`key NAME`).
        case console
    }

    public var source: Source
    /// The key's name in its source's vocabulary: libcec names for CEC
    /// (`PLAY`), Linux input names for LIRC devinput and evdev (`KEY_PLAY`).
    public var key: String
    /// The LIRC remote name (`devinput-64`), if any.
    public var remote: String?
    /// True for auto-repeats of a held key (not for a fresh press).
    public var isRepeat: Bool
    /// When the source read the event (for latency measurements).
    public var receivedAt: ContinuousClock.Instant?

    public init(source: Source, key: String, remote: String? = nil, isRepeat: Bool = false,
                receivedAt: ContinuousClock.Instant? = nil) {
        self.source = source
        self.key = key
        self.remote = remote
        self.isRepeat = isRepeat
        self.receivedAt = receivedAt
    }

    /// `lirc devinput-64:KEY_PLAY (repeat)` for logs and the console's `keys`.
    public var description: String {
        "\(source.rawValue) \(remote.map { "\($0):" } ?? "")\(key)\(isRepeat ? " (repeat)" : "")"
    }
}

extension Action {
    /// Whether holding a key repeats the action (volume and seek do).
    public var repeatsWhenHeld: Bool {
        switch self {
        case .volumeUp, .volumeDown, .seekBy: true
        default: false
        }
    }
}

/// A key as outputs see it once the keymaps have read it: for Home
/// Assistant's key events (an unmapped colour button can drive the home).
public struct KeyPress: Sendable, Equatable {
    public var event: InputEvent
    /// Whether a keymap turned it into an action.
    public var mapped: Bool

    public init(event: InputEvent, mapped: Bool) {
        self.event = event
        self.mapped = mapped
    }
}
