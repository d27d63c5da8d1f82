import Commands
import Dispatch
import GatewayModel
import MediaServer
import ServiceLifecycle
import SystemSupport

/// The `[web]` service: reads the password hash, serves the interface on
/// libmicrohttpd, keeps the handler's copy of the state current from the
/// gateway's state stream (a push: nothing runs while nothing changes), and
/// carries the browsers' commands, one at a time in order, to `perform`.
public struct WebInterfaceService: Service {
    public let name = "web"
    let settings: WebSettings
    let presets: @Sendable () -> AsyncStream<[WebPreset]>
    let config: WebConfigFile?
    let inputs: @Sendable () -> [WebInput]
    let software: @Sendable () -> WebSoftware?
    let hostName: String?
    let announce: @Sendable (WebServiceRecord) -> (@Sendable () -> Void)?
    let states: @Sendable () -> AsyncStream<GatewayState>
    let perform: @Sendable (GatewayCommand) async -> Void
    let timeSource: any TimeSource
    /// Commands not yet taken by `perform`; a browser sending more is answered 503.
    static let queueLength = 16

    /// `presets`: the configured presets, now and after every reload (they change without a restart, so sessions stay).
    /// `config`: the file the page edits, with check-config's checks and the reload; nil: no editor.
    /// `inputs`: the remote inputs now, with their last keys (read at each `/api/state`).
    /// `software`: the release and whether the box takes A/B updates (read at each page and `/api/state`).
    public init(settings: WebSettings, presets: @escaping @Sendable () -> AsyncStream<[WebPreset]>, config: WebConfigFile? = nil,
                inputs: @escaping @Sendable () -> [WebInput] = { [] },
                software: @escaping @Sendable () -> WebSoftware? = { nil },
                hostName: String? = nil, announce: @escaping @Sendable (WebServiceRecord) -> (@Sendable () -> Void)? = { _ in nil },
                states: @escaping @Sendable () -> AsyncStream<GatewayState>,
                timeSource: any TimeSource, perform: @escaping @Sendable (GatewayCommand) async -> Void) {
        self.settings = settings
        self.presets = presets
        self.config = config
        self.inputs = inputs
        self.software = software
        self.hostName = hostName
        self.announce = announce
        self.states = states
        self.timeSource = timeSource
        self.perform = perform
    }

    public func run() async throws {
        let path = settings.passwordFile
        // No password file yet (an image whose firstboot.conf set no
        // web-password): no web interface, said once; not a failure to retry.
        guard FileSystem.exists(path) else {
            Logger(label: "web").notice("no web interface: \(WebInterfaceService.noPasswordFile(path))")
            return
        }
        let password = try await WebInterfaceService.offPool { () throws(WebError) -> PasswordHash in
            let text: String
            do {
                text = try FileSystem.readText(path, limit: 4096)
            } catch {
                throw WebError(.passwordFile, "cannot read the password file: \(error); create it with: cast-gateway web-password \(path)")
            }
            return try PasswordHash(parsing: text, origin: path)
        }
        let (commands, queue) = AsyncStream<GatewayCommand>.makeStream(bufferingPolicy: .bufferingOldest(WebInterfaceService.queueLength))
        let hostCheck = WebHostCheck(listenHost: settings.listen.host, hostName: hostName, extra: settings.allowedHosts)
        let handler = WebRequestHandler(password: password, presets: [], idleTimeout: settings.sessionIdleTimeout,
                                        timeSource: timeSource, config: config, inputs: inputs, software: software, hostCheck: hostCheck,
                                        secureCookie: settings.tls != .off) { command in
            if case .enqueued = queue.yield(command) { return true }
            return false
        }
        let listen = settings.listen, tls = settings.tls, hostName = self.hostName
        let daemon = try await WebInterfaceService.offPool { () throws(WebError) -> WebHTTPDaemon in
            let credentials = try WebCertificate.credentials(tls, hostName: hostName, listenHost: listen.host) { path, made in
                Logger(label: "web").notice("made a self-signed HTTPS certificate, kept in \(path); SHA-256 \(made.fingerprint)")
            }
            return try WebHTTPDaemon(address: listen, handler: handler, tls: credentials)
        }
        Logger(label: "web").notice("web interface on \(settings.scheme)://\(daemon.address)/")
        // Published once listening (the bound port), withdrawn before the daemon stops.
        let announce = self.announce
        var withdraw: (@Sendable () -> Void)?
        if let record = settings.serviceRecord(hostName: hostName, port: daemon.address.port) {
            withdraw = try? await WebInterfaceService.offPool { () throws(WebError) in announce(record) }
        }
        let states = self.states, perform = self.perform, presets = self.presets
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await state in states() { handler.update(state) }
            }
            group.addTask {
                for await list in presets() { handler.setPresets(list) }
            }
            group.addTask {
                for await command in commands { await perform(command) }
            }
            // All end when the service is cancelled; any ending alone ends the others.
            await group.next()
            group.cancelAll()
        }
        queue.finish()
        if let withdraw { _ = try? await WebInterfaceService.offPool { () throws(WebError) in withdraw() } }
        _ = try? await WebInterfaceService.offPool { () throws(WebError) in daemon.stop() }
    }

    /// Why there is no web interface when the password file is missing (the service's log and check-config).
    public static func noPasswordFile(_ path: String) -> String {
        "there is no password file \(path); create it with: cast-gateway web-password \(path) (on the image: firstboot.conf's web-password)"
    }

    /// Runs blocking work (file reads, MHD's start and stop) on a Dispatch queue, off the cooperative pool.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws(WebError) -> T) async throws(WebError) -> T {
        let result: Result<T, WebError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(WebError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
