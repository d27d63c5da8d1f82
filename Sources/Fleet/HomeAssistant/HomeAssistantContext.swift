/// What the Home Assistant device shows beyond `[mqtt]`: facts from the
/// rest of the configuration and from the machine. A change (a reload that
/// adds a preset or turns CEC off) changes the announced entities.
public struct HomeAssistantContext: Sendable, Equatable {
    /// A configured preset, as a button and a `Play` option.
    public struct Preset: Sendable, Equatable {
        public var number: Int
        /// Its title, or else its URL's file name.
        public var name: String
        public var url: String

        public init(number: Int, name: String, url: String) {
            self.number = number
            self.name = name
            self.url = url
        }

        /// The name a preset shows: its title, else the last part of its URL's path.
        public static func name(url: String, title: String?) -> String {
            if let title, !title.isEmpty { return title }
            var path = Substring(url)
            if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
            while path.hasSuffix("/") { path = path.dropLast() }
            let last = path.split(separator: "/").last.map(String.init) ?? url
            return last.isEmpty || last.hasSuffix(":") ? url : last
        }
    }

    /// The configured presets, by number.
    public var presets: [Preset]
    /// HDMI-CEC is configured: the TV's power and input are entities.
    public var tv: Bool
    /// The remote inputs configured (`cec`, `lirc`, `evdev`): their keys are events.
    public var keySources: [String]
    /// Key names the keymaps map to an action (their events say `mapped: true`).
    public var mappedKeys: Set<String>
    /// The device's model: the board profile's, or the machine's own.
    public var model: String
    public var hardwareVersion: String?
    /// The box's web interface (`[web]`), the device page's "Visit" link; nil without one.
    public var configurationURL: String?
    /// The box takes A/B updates from the fleet: it gets an `update` entity.
    public var updates: Bool

    public init(presets: [Preset] = [], tv: Bool = false, keySources: [String] = [], mappedKeys: Set<String> = [],
                model: String = "Linux", hardwareVersion: String? = nil, configurationURL: String? = nil,
                updates: Bool = false) {
        self.presets = presets
        self.tv = tv
        self.keySources = keySources
        self.mappedKeys = mappedKeys
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.configurationURL = configurationURL
        self.updates = updates
    }

    /// Keys a remote commonly has that keymaps leave free (the colour
    /// buttons): each gets a device trigger for automations, when unmapped.
    public static let freeKeys: [String: [String]] = [
        "cec": ["F1_BLUE", "F2_RED", "F3_GREEN", "F4_YELLOW"],
        "lirc": ["KEY_RED", "KEY_GREEN", "KEY_YELLOW", "KEY_BLUE"],
        "evdev": ["KEY_RED", "KEY_GREEN", "KEY_YELLOW", "KEY_BLUE"],
    ]

    /// The free keys of the configured sources that no keymap maps, in order.
    public var triggerKeys: [String] {
        var keys: [String] = []
        for source in keySources {
            for key in HomeAssistantContext.freeKeys[source] ?? [] where !mappedKeys.contains(key) && !keys.contains(key) {
                keys.append(key)
            }
        }
        return keys
    }

    /// The event types the key event entity declares: every mapped key, the
    /// trigger keys, and `other` for the rest (Home Assistant refuses an
    /// event type it was not told of).
    public var eventTypes: [String] {
        var types = mappedKeys.sorted()
        for key in triggerKeys where !types.contains(key) { types.append(key) }
        types.append(HomeAssistantContext.otherKey)
        return types
    }

    public static let otherKey = "other"
}
