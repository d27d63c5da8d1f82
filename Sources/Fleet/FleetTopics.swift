/// The topic layout, one place:
///
///     <prefix>/<room>/state          retained JSON state
///     <prefix>/<room>/availability   retained `online` / `offline` (Last Will)
///     <prefix>/<room>/link           retained `online` / `offline`: the Cast link is up
///     <prefix>/<room>/event          remote keys, one JSON event per press
///     <prefix>/<room>/cmd            commands for this room
///     <prefix>/<room>/reply          replies to commands
///     <prefix>/all/cmd               commands for every room
///     <prefix>/group/<name>/cmd      commands for a configured group
///     <prefix>/all/update            retained: the bundle the fleet should run,
///                                    {"version":"2.1","url":"https://...","sha256":"..."}
public struct FleetTopics: Sendable, Equatable {
    public static let defaultPrefix = "castgw"

    public let prefix: String
    public let room: String
    public let groups: [String]

    public init(prefix: String, room: String, groups: [String] = []) {
        self.prefix = prefix
        self.room = room
        self.groups = groups
    }

    public var state: String { "\(prefix)/\(room)/state" }
    public var availability: String { "\(prefix)/\(room)/availability" }
    public var link: String { "\(prefix)/\(room)/link" }
    public var keyEvents: String { "\(prefix)/\(room)/event" }
    public var command: String { "\(prefix)/\(room)/cmd" }
    public var reply: String { "\(prefix)/\(room)/reply" }
    public var allCommand: String { "\(prefix)/all/cmd" }
    /// The fleet's update announcement (retained; deploy/rollout publishes it).
    public var updateOffer: String { "\(prefix)/all/update" }
    public func groupCommand(_ name: String) -> String { "\(prefix)/group/\(name)/cmd" }

    /// Every command topic this room subscribes to.
    public var commandTopics: [String] { [command, allCommand] + groups.map(groupCommand) }

    /// Why `name` cannot be one topic level (room, group), or nil if it can.
    public static func problem(withLevel name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > 64 { return "is longer than 64 bytes" }
        if name.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" }) { return "must not contain '/', '+' or '#' (MQTT topic separators and wildcards)" }
        if name.hasPrefix("$") { return "must not start with '$' (reserved by brokers)" }
        if name.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) { return "must not contain spaces or control characters" }
        return nil
    }

    /// Why `prefix` cannot start topics (it may contain '/'), or nil if it can.
    public static func problem(withPrefix prefix: String) -> String? {
        if prefix.hasPrefix("/") || prefix.hasSuffix("/") { return "must not start or end with '/'" }
        for level in prefix.split(separator: "/", omittingEmptySubsequences: false) {
            if level.isEmpty { return "must not contain an empty level ('//')" }
            if let problem = problem(withLevel: String(level)) { return problem }
        }
        return nil
    }
}
