import Commands
import GatewayModel
import Synchronization
import SystemSupport

/// Answers every request of the web interface: the login, the sessions and
/// their CSRF tokens, the lockout, the pages and the controls. Called on
/// libmicrohttpd's thread (never on the cooperative pool: checking a
/// password takes a deliberate fraction of a second); a control leaves it
/// through `submit`, which hands the command to the web service's task
/// (and so to the gateway's actors) without waiting.
///
/// Every page but the login page needs a session; without one a page
/// redirects to /login and the API answers 401, showing nothing.
public final class WebRequestHandler: Sendable {
    public static let cookieName = "cg_session"
    /// On every answer: no script but the page's own file, no framing, no sniffing.
    public static let securityHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
    ]

    private let password: PasswordHash
    let timeSource: any TimeSource
    /// The preset buttons and every accepted control; presets change with a reload (sessions stay).
    private let buttons: Mutex<Buttons>
    private let access: Mutex<Access>
    let state = Mutex(GatewayState())
    let submit: @Sendable (GatewayCommand) -> Bool
    private let newToken: @Sendable () -> String?
    /// The config file the page edits; nil: no editor (tests of other parts).
    let config: WebConfigFile?
    /// The daemon's recent log lines, oldest first (the Logs page).
    let recentLog: @Sendable () -> [String]
    /// The remote inputs, how each is set up and its last key.
    let inputs: @Sendable () -> [WebInput]
    /// The release and whether the box takes A/B updates; nil: no Software section (tests of other parts).
    let software: @Sendable () -> WebSoftware?
    /// The names the box answers to; nil: any (unit tests of other parts).
    let hostCheck: WebHostCheck?
    /// `; Secure` on the session cookie: served over HTTPS, never sent back over plain HTTP.
    private let cookieAttributes: String
    let logger = Logger(label: "web")

    struct Buttons {
        var presets: [WebControl]
        var controls: [String: WebControl]

        init(presets: [WebPreset]) {
            self.presets = WebControl.presets(presets)
            controls = [:]
            for control in WebControl.player + WebControl.volume + WebControl.keys + WebControl.kiosk + [WebControl.searchDevices]
                + self.presets {
                controls[control.value] = control
            }
        }
    }

    struct Access {
        var sessions: WebSessions
        var throttle = LoginThrottle()
    }

    /// `submit` queues a command for the gateway and says whether it was taken (false: the queue is full).
    public init(password: PasswordHash, presets: [WebPreset], idleTimeout: Duration, timeSource: any TimeSource,
                newToken: @escaping @Sendable () -> String? = { SecureRandom.token() }, config: WebConfigFile? = nil,
                recentLog: @escaping @Sendable () -> [String] = { LogRing.shared.lines },
                inputs: @escaping @Sendable () -> [WebInput] = { [] },
                software: @escaping @Sendable () -> WebSoftware? = { nil }, hostCheck: WebHostCheck? = nil,
                secureCookie: Bool = false, submit: @escaping @Sendable (GatewayCommand) -> Bool) {
        self.password = password
        self.timeSource = timeSource
        buttons = Mutex(Buttons(presets: presets))
        self.config = config
        self.recentLog = recentLog
        self.inputs = inputs
        self.software = software
        self.hostCheck = hostCheck
        cookieAttributes = "Path=/; HttpOnly; SameSite=Strict" + (secureCookie ? "; Secure" : "")
        access = Mutex(Access(sessions: WebSessions(idleTimeout: idleTimeout)))
        self.newToken = newToken
        self.submit = submit
    }

    /// The newest state, pushed by the gateway's state stream.
    public func update(_ newState: GatewayState) {
        state.withLock { $0 = newState }
    }

    /// The configured presets, after a reload changed them.
    public func setPresets(_ presets: [WebPreset]) {
        buttons.withLock { $0 = Buttons(presets: presets) }
    }

    /// Sessions open now (tests).
    public var sessionCount: Int { access.withLock { $0.sessions.count } }

    public func respond(to request: WebRequest) -> WebResponse {
        // The Host first: a foreign one learns nothing, not even the body limit.
        var response = foreign(request) ?? (request.bodyTooLarge ? tooLarge() : route(request))
        response.headers += WebRequestHandler.securityHeaders
        return response
    }

    private func route(_ request: WebRequest) -> WebResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        let path = request.path
        switch (method, path) {
        case ("GET", "/style.css"): return WebResponse(status: 200, contentType: "text/css; charset=utf-8", text: WebPages.style)
        case ("GET", "/app.js"): return WebResponse(status: 200, contentType: "text/javascript; charset=utf-8", text: WebPages.script)
        case ("GET", "/favicon.ico"): return WebResponse(status: 204)  // none; saves browsers a logged 404
        case ("GET", "/login"):
            if session(of: request) != nil { return redirect("/") }
            return page(200, WebPages.login(message: nil))
        case ("POST", "/login"): return login(request)
        case (_, _) where method != "GET" && method != "POST":
            return WebResponse(status: 405, headers: [("Allow", "GET, HEAD, POST"), ("Content-Type", "text/plain; charset=utf-8")],
                               body: Array("method not allowed\n".utf8))
        default: break
        }
        guard let session = session(of: request) else {
            if path.hasPrefix("/api/") || request.requestedWith == "fetch" {
                return WebResponse(status: 401, contentType: "application/json", text: #"{"error":"log in first"}"#)
            }
            return redirect("/login")
        }
        switch (method, path) {
        case ("GET", "/"):
            return page(200, WebPages.status(csrf: session.csrf, presets: buttons.withLock { $0.presets },
                                             state: state.withLock { $0 }, software: software()))
        case ("GET", "/api/state"):
            let current = state.withLock { $0 }
            let document = WebStatusDocument.json(current, now: timeSource.now.seconds, inputs: inputs(), software: software())
            return WebResponse(status: 200, contentType: "application/json", text: document.serialized)
        case ("POST", "/control"):
            guard WebSessions.csrfMatches(request.form["csrf"], session) else { return forbidden() }
            return control(request)
        case ("GET", "/logs"):
            return page(200, WebPages.logs(csrf: session.csrf, lines: recentLog()))
        case ("GET", "/logs.txt"):
            // A download for a support case: plain text, never rendered by the browser.
            let lines = recentLog()
            return WebResponse(status: 200, headers: [("Content-Type", "text/plain; charset=utf-8"),
                                                      ("Content-Disposition", #"attachment; filename="cast-gateway-log.txt""#)],
                               body: Array((lines.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")).utf8))
        case ("GET", "/config"):
            return configPage(session)
        case ("POST", "/config"):
            guard WebSessions.csrfMatches(request.form["csrf"], session) else { return forbidden() }
            return configSubmitted(request, session)
        case ("POST", "/update"):
            guard WebSessions.csrfMatches(request.form["csrf"], session) else { return forbidden() }
            return updateSubmitted(request)
        case ("POST", "/logout"):
            guard WebSessions.csrfMatches(request.form["csrf"], session) else { return forbidden() }
            access.withLock { $0.sessions.end(session.token) }
            var response = redirect("/login")
            response.headers.append(("Set-Cookie", "\(WebRequestHandler.cookieName)=; \(cookieAttributes); Max-Age=0"))
            return response
        default:
            return page(404, WebPages.message("Not found", "There is no such page."))
        }
    }

    /// A request under a name that is not the box's (DNS rebinding), refused
    /// before anything else: no login, no session touched, no state. Not
    /// logged: anyone can send these, as often as they like.
    private func foreign(_ request: WebRequest) -> WebResponse? {
        guard let hostCheck else { return nil }
        guard hostCheck.accepts(host: request.host) else {
            return WebResponse(status: 421, contentType: "text/plain; charset=utf-8",
                               text: "this gateway does not answer to that host name; open it by its address or host name "
                                   + "(or add the name to [web] allowed-hosts)\n")
        }
        if request.method == "POST", !hostCheck.accepts(origin: request.origin) {
            return WebResponse(status: 403, contentType: "text/plain; charset=utf-8", text: "request from another site refused\n")
        }
        return nil
    }

    private func session(of request: WebRequest) -> WebSessions.Session? {
        let token = request.cookie(WebRequestHandler.cookieName)
        let now = timeSource.now
        return access.withLock { $0.sessions.use(token, at: now) }
    }

    private func login(_ request: WebRequest) -> WebResponse {
        if let wait = access.withLock({ $0.throttle.refusal(at: timeSource.now) }) {
            let seconds = max(1, Int(wait.seconds.rounded(.up)))
            logger.warning("login refused without checking the password: \(LoginThrottle.allowedFailures) wrong passwords within a minute; "
                           + "attempts are checked again in \(seconds) s")
            var response = page(429, WebPages.message("Too many attempts",
                                                      "Too many wrong passwords. Wait \(seconds) seconds, then try again."))
            response.headers.append(("Retry-After", String(seconds)))
            return response
        }
        let given = request.bodyTooLarge ? "" : (request.form["password"] ?? "")
        let right = !given.isEmpty && password.matches(given)
        let now = timeSource.now
        guard right, let token = newToken(), let csrf = newToken() else {
            let failures = access.withLock { access -> Int in
                access.throttle.failed(at: now)
                return access.throttle.recentFailures
            }
            if right {
                logger.error("login failed: OpenSSL could not produce a session token; the random generator is not working")
                return page(500, WebPages.message("Not logged in", "The gateway could not make a session. See its log."))
            }
            logger.notice("wrong password at the web login (\(failures) within a minute; the login locks after \(LoginThrottle.allowedFailures))")
            // The login page again, with no cookie (libmicrohttpd keeps a query from the handler: no redirect to /login?failed).
            return page(401, WebPages.login(message: "Wrong password."))
        }
        access.withLock {
            $0.throttle.succeeded()
            _ = $0.sessions.create(token: token, csrf: csrf, at: now)
        }
        logger.info("web login")
        var response = redirect("/")
        response.headers.append(("Set-Cookie", "\(WebRequestHandler.cookieName)=\(token); \(cookieAttributes)"))
        return response
    }

    private func control(_ request: WebRequest) -> WebResponse {
        guard let value = request.form["control"], let control = control(value), let command = control.command else {
            return WebResponse(status: 400, contentType: "text/plain; charset=utf-8", text: "unknown control\n")
        }
        guard submit(command) else {
            logger.warning("web control \(control.value) dropped: the gateway has not yet taken the earlier ones")
            return WebResponse(status: 503, headers: [("Retry-After", "1"), ("Content-Type", "text/plain; charset=utf-8")],
                               body: Array("busy; try again\n".utf8))
        }
        return request.requestedWith == "fetch" ? WebResponse(status: 204) : redirect("/")
    }

    /// The control of a form value: a fixed button, or the "Use this device"
    /// of a device in the discovery table now (any other id is refused).
    private func control(_ value: String) -> WebControl? {
        if let fixed = buttons.withLock({ $0.controls[value] }) { return fixed }
        guard value.hasPrefix(WebControl.usePrefix) else { return nil }
        let id = String(value.dropFirst(WebControl.usePrefix.count))
        return state.withLock { $0.devices.first { $0.id == id } }.map(WebControl.use)
    }

    func tooLarge() -> WebResponse {
        WebResponse(status: 413, contentType: "text/plain; charset=utf-8", text: "request body too large\n")
    }

    func forbidden() -> WebResponse {
        WebResponse(status: 403, contentType: "text/plain; charset=utf-8", text: "missing or wrong CSRF token; reload the page\n")
    }

    func redirect(_ location: String) -> WebResponse {
        WebResponse(status: 303, headers: [("Location", location)])
    }

    func page(_ status: Int, _ html: String) -> WebResponse {
        WebResponse(status: status, contentType: "text/html; charset=utf-8", text: html)
    }
}
