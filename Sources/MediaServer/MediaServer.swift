import Dispatch
import SystemSupport

/// Serves local files under the configured roots to Cast receivers over
/// HTTP (libmicrohttpd): GET/HEAD, byte ranges, validators, CORS. It knows
/// files and HTTP, nothing of Cast.
///
/// It listens on one address: the one the receiver reaches the box by
/// (`listen(towardReceiver:)`), re-chosen when the receiver moves. URLs for
/// local files name that address: `http://ADDR:PORT/<token>/<root index>/<path>`,
/// each path component percent-encoded (see `MediaRequestPath`), the token
/// unguessable (see `MediaURLToken`).
///
/// Starting and stopping the daemon block (bind, thread join), so they run on
/// the server's own Dispatch queue, never on the cooperative pool.
public final class MediaServer: @unchecked Sendable {
    public let settings: MediaServerSettings
    public let roots: MediaRoots
    public let limits: ConnectionLimits
    /// `/<token>`: the start of every media URL's path (see `MediaURLToken`).
    public let urlPrefix: String
    private let handler: MediaRequestHandler
    private let queue = DispatchQueue(label: "media-server.lifecycle")
    private let logger = Logger(label: "media-server")
    /// Confined to `queue`.
    private var daemon: HTTPDaemon?
    /// Readable from anywhere (URL building); followed by `endpoints()`.
    private let current = StateBroadcaster<ListenAddress?>(nil)
    /// The receiver's address, which keeps a share of the connections for itself
    /// (see `ConnectionAdmission`). Confined to `queue`.
    private var receiver: String?

    /// Validates the settings (roots must exist and be readable directories).
    public init(settings: MediaServerSettings, limits: ConnectionLimits = ConnectionLimits()) throws {
        self.settings = settings
        self.limits = limits
        roots = try settings.validated()
        urlPrefix = "/" + MediaURLToken.current
        handler = MediaRequestHandler(roots: roots, corsOrigin: settings.corsOrigin, urlToken: MediaURLToken.current)
    }

    /// Where the server listens now (the real port when 0 was configured), or nil.
    public var endpoint: ListenAddress? { current.current }

    /// Where the server listens, now and at every change (nil: not listening).
    public func endpoints() -> AsyncStream<ListenAddress?> { current.subscribe() }

    /// Open connections from hosts other than the receiver (0 when not listening).
    public func connectionsFromOthers() async -> Int {
        (try? await onQueue { [self] in daemon?.admission.othersOpen ?? 0 }) ?? 0
    }

    /// Listens on the source address of the route to `receiver` (a numeric
    /// IP), and keeps connections in reserve for that address. Call again
    /// when the receiver's address changes: the server moves only when the
    /// local address differs.
    @discardableResult
    public func listen(towardReceiver receiver: String) async throws -> ListenAddress {
        let local = try await onQueue { try RouteSource.localAddress(toward: receiver) }
        return try await listen(on: local, receiver: receiver)
    }

    /// Listens on `host` (numeric), on the configured port. Keeps the running
    /// daemon when it already listens there; otherwise stops it and starts anew.
    @discardableResult
    public func listen(on host: String) async throws -> ListenAddress {
        try await listen(on: host, receiver: nil)
    }

    private func listen(on host: String, receiver newReceiver: String?) async throws -> ListenAddress {
        guard let wanted = ListenAddress(host: host, port: settings.port) else {
            throw MediaServerError(.listenFailed, "cannot listen on '\(host)': not a numeric IP address")
        }
        return try await onQueue { [self] in
            dispatchPrecondition(condition: .onQueue(queue))
            if let newReceiver { receiver = newReceiver }
            if let daemon, daemon.address.host == wanted.host, settings.port == 0 || daemon.address.port == settings.port {
                daemon.admission.setReceiver(receiver)
                return daemon.address
            }
            if let old = daemon {
                old.stop()
                daemon = nil
                current.publish(nil)
                logger.info("stopped listening on \(old.address)")
            }
            let started = try HTTPDaemon(address: wanted, handler: handler, limits: limits, receiver: receiver)
            daemon = started
            current.publish(started.address)
            logger.notice("serving \(roots.paths.joined(separator: ", ")) on http://\(started.address)/")
            return started.address
        }
    }

    /// Loads libmicrohttpd (and initialises GnuTLS behind it) now, off the
    /// cooperative pool, so that the first listen, once the receiver is
    /// known, is not later for it: a kiosk asks for URLs right then. A
    /// failure is left for `listen` to report.
    public static func preload() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                _ = try? HTTPDaemon.loadLibrary()
                continuation.resume()
            }
        }
    }

    /// Stops listening and closes every connection. Idempotent.
    public func stop() async {
        await onQueue { [self] in
            dispatchPrecondition(condition: .onQueue(queue))
            guard let old = daemon else { return }
            old.stop()
            daemon = nil
            current.publish(nil)
            logger.info("stopped listening on \(old.address)")
        }
    }

    private func onQueue<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    private func onQueue(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                work()
                continuation.resume()
            }
        }
    }

    deinit {
        // A server dropped without stop(): do not leave MHD's thread serving.
        daemon?.stop()
    }
}
