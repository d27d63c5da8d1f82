/// One remote input as the status page shows it: lircd, evdev or CEC, how
/// it is set up (nil: off), and the last key the remote control read from
/// it. The daemon lends a closure that makes these; whether it works now
/// comes from the gateway state's input problems.
public struct WebInput: Sendable, Equatable {
    /// `lirc`, `evdev`, `cec`: the names `inputProblems` uses.
    public let name: String
    /// `lircd at /run/lirc/lircd`, `/dev/input/event3`; nil: not set up.
    public let setup: String?
    /// `lirc devinput:KEY_UP -> volumeUp` (what the console's `keys` shows); nil: none yet.
    public let lastKey: String?

    public init(name: String, setup: String?, lastKey: String?) {
        self.name = name
        self.setup = setup
        self.lastKey = lastKey
    }
}
