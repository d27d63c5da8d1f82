/// The logged-in browsers: each session is a random token (the cookie) with
/// its own CSRF token, forgotten after `idleTimeout` without a request.
/// Lookups compare against every session in constant time, so the time a
/// lookup takes says nothing about how much of a guessed token was right.
/// Pure: the caller gives the time and the random tokens.
public struct WebSessions: Sendable {
    public struct Session: Sendable, Equatable {
        public let token: String
        public let csrf: String
        public var lastUsed: Duration
    }

    /// At most this many browsers at once; a new login ends the least recently used.
    public static let maximumSessions = 16

    public let idleTimeout: Duration
    private var sessions: [Session] = []

    public init(idleTimeout: Duration) {
        self.idleTimeout = idleTimeout
    }

    public var count: Int { sessions.count }

    /// Starts a session with the given fresh tokens.
    public mutating func create(token: String, csrf: String, at now: Duration) -> Session {
        expire(at: now)
        if sessions.count >= WebSessions.maximumSessions, let oldest = sessions.indices.min(by: { sessions[$0].lastUsed < sessions[$1].lastUsed }) {
            sessions.remove(at: oldest)
        }
        let session = Session(token: token, csrf: csrf, lastUsed: now)
        sessions.append(session)
        return session
    }

    /// The session of `token` (and marks it used), or nil when there is none or it idled out.
    public mutating func use(_ token: String?, at now: Duration) -> Session? {
        expire(at: now)
        guard let token, !token.isEmpty else { return nil }
        var found: Int?
        for index in sessions.indices where ConstantTime.equal(token, sessions[index].token) {
            found = index
        }
        guard let found else { return nil }
        sessions[found].lastUsed = now
        return sessions[found]
    }

    /// Whether `csrf` is the session's CSRF token (constant time).
    public static func csrfMatches(_ csrf: String?, _ session: Session) -> Bool {
        guard let csrf, !csrf.isEmpty else { return false }
        return ConstantTime.equal(csrf, session.csrf)
    }

    public mutating func end(_ token: String) {
        sessions.removeAll { ConstantTime.equal(token, $0.token) }
    }

    private mutating func expire(at now: Duration) {
        sessions.removeAll { now - $0.lastUsed >= idleTimeout }
    }
}
