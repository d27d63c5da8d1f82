/// A Cast device seen on the network (from its `_googlecast._tcp` mDNS record).
public struct CastDevice: Sendable, Equatable, Hashable {
    /// Capability bits of the `ca` TXT key.
    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let videoOut = Capabilities(rawValue: 1)
        public static let videoIn = Capabilities(rawValue: 2)
        public static let audioOut = Capabilities(rawValue: 4)
        public static let audioIn = Capabilities(rawValue: 8)
        public static let devMode = Capabilities(rawValue: 16)
        public static let multizoneGroup = Capabilities(rawValue: 32)

        /// `video`, `audio`, `group`, ... for tables.
        public var names: [String] {
            var names: [String] = []
            if contains(.videoOut) { names.append("video") }
            if contains(.audioOut) { names.append("audio") }
            if contains(.multizoneGroup) { names.append("group") }
            if contains(.devMode) { names.append("dev") }
            return names
        }
    }

    /// The mDNS service instance name (unique on the network).
    public var serviceName: String
    /// Device id (`id`, a uuid without dashes); stable across address changes.
    public var id: String
    /// Friendly name (`fn`), e.g. "Living Room TV".
    public var name: String
    /// Model (`md`), e.g. "Chromecast Ultra".
    public var model: String
    public var capabilities: Capabilities
    /// `st`: 0 idle, 1 busy (an app is casting).
    public var busy: Bool
    /// `rs`: the running app's name, if any.
    public var runningApp: String?
    public var host: String
    public var port: UInt16
    /// Every TXT key and value, including ones this version does not interpret.
    public var txt: [String: String]

    public init(serviceName: String, id: String, name: String, model: String, capabilities: Capabilities, busy: Bool,
                runningApp: String?, host: String, port: UInt16, txt: [String: String]) {
        self.serviceName = serviceName
        self.id = id
        self.name = name
        self.model = model
        self.capabilities = capabilities
        self.busy = busy
        self.runningApp = runningApp
        self.host = host
        self.port = port
        self.txt = txt
    }

    /// A Cast group: the multizone bit of `ca`, or, when a record has no
    /// `ca`, a port other than 8009 (groups use their own port).
    public var isGroup: Bool {
        capabilities.contains(.multizoneGroup) || (txt["ca"] == nil && port != 8009)
    }

    /// `host:port` with IPv6 bracketed.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether `query` names this device: its friendly name (case-insensitive)
    /// or its id (with or without dashes).
    public func matches(_ query: String) -> Bool {
        if name.lowercased() == query.lowercased() { return true }
        let normalized = query.lowercased().filter { $0 != "-" }
        return !normalized.isEmpty && normalized == id.lowercased().filter { $0 != "-" }
    }
}

/// The discovered devices and whether discovery itself works right now.
public struct DiscoverySnapshot: Sendable, Equatable {
    public var devices: [CastDevice]
    /// nil while discovery runs; otherwise why it does not (e.g. avahi-daemon not running).
    public var problem: String?

    public init(devices: [CastDevice] = [], problem: String? = nil) {
        self.devices = devices
        self.problem = problem
    }

    /// The first device matching `query` (see `CastDevice.matches`).
    public func device(matching query: String) -> CastDevice? {
        devices.first { $0.matches(query) }
    }
}
