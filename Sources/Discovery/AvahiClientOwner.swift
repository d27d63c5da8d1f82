import CAvahi
import SystemSupport

/// Owns an Avahi client on Avahi's threaded poll, and keeps it alive.
///
/// - Avahi calls its callbacks on the poll's own thread with the poll lock
///   held; everything else that touches Avahi objects takes that lock
///   (`withPollLock`). No Avahi call runs on the Swift cooperative pool without it.
/// - The client is created with `AVAHI_CLIENT_NO_FAIL`, so a missing or
///   restarting avahi-daemon is waited for (`daemonLost` / `clientRunning`).
/// - When the client fails outright (e.g. no D-Bus system bus), it is
///   recreated with exponential backoff.
///
/// Subclasses override `clientRunning(_:)` and `daemonLost()`.
public class AvahiClientOwner: @unchecked Sendable {
    let logger: Logger
    private let poll: OpaquePointer
    /// Guarded by the poll lock.
    private(set) var client: OpaquePointer?
    private var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
    private var retryTask: Task<Void, Never>?
    private var stopped = false
    private var started = false
    private var recurring = RecurringProblem()

    init(label: String) throws {
        logger = Logger(label: label)
        guard let poll = avahi_threaded_poll_new() else {
            throw SystemError("create the Avahi event loop", errno: 12)
        }
        self.poll = poll
    }

    deinit {
        stop()
        avahi_threaded_poll_free(poll)
    }

    /// Starts the poll thread and the client.
    func start() {
        guard !started else { return }
        started = true
        guard avahi_threaded_poll_start(poll) == 0 else {
            report("cannot start the Avahi event loop thread")
            return
        }
        withPollLock { createClient() }
    }

    /// Stops the poll thread and frees every Avahi object.
    func stop() {
        guard started, !stopped else { return }
        stopped = true
        retryTask?.cancel()
        avahi_threaded_poll_stop(poll)
        // The poll thread has exited: no callback can run concurrently now.
        releaseObjects()
        if let client { avahi_client_free(client) }
        client = nil
    }

    func withPollLock<R>(_ body: () -> R) -> R {
        avahi_threaded_poll_lock(poll)
        defer { avahi_threaded_poll_unlock(poll) }
        return body()
    }

    // MARK: Hooks (called on the poll thread, lock held)

    /// The daemon is reachable: create browsers or entry groups on `client`.
    func clientRunning(_ client: OpaquePointer) {}
    /// The daemon went away: objects made on the client are invalid; free them.
    func releaseObjects() {}
    /// Discovery or publishing is impossible for now; `message` says why.
    func report(_ message: String) {}

    // MARK: Client lifecycle

    /// Lock held (or poll not yet running).
    private func createClient() {
        var error: Int32 = 0
        let created = avahi_client_new(avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, { client, state, userdata in
            guard let client, let userdata else { return }
            Unmanaged<AvahiClientOwner>.fromOpaque(userdata).takeUnretainedValue().clientStateChanged(client, state)
        }, Unmanaged.passUnretained(self).toOpaque(), &error)
        if let created {
            client = created
        } else {
            let message = "cannot reach the mDNS service (\(String(cString: avahi_strerror(error)))): is D-Bus running?"
            recurring.report(message, to: logger)
            report(message)
            scheduleRetry()
        }
    }

    private func clientStateChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            backoff.reset()
            recurring.clear()
            logger.notice("avahi-daemon is running; mDNS is available")
            clientRunning(client)
        case AVAHI_CLIENT_CONNECTING:
            releaseObjects()
            let message = "avahi-daemon is not running; waiting for it to start"
            recurring.report(message, to: logger)
            report(message)
        case AVAHI_CLIENT_FAILURE:
            releaseObjects()
            let message = "mDNS client failed: \(String(cString: avahi_strerror(avahi_client_errno(client))))"
            recurring.report(message, to: logger)
            report(message)
            scheduleRetry()
        default:
            break
        }
    }

    /// Recreates the client after a backoff delay, off the poll thread.
    private func scheduleRetry() {
        guard !stopped else { return }
        let delay = backoff.nextDelay()
        logger.debug("retrying mDNS in \(Int(delay.seconds * 1000)) ms")
        retryTask?.cancel()
        retryTask = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled, let self else { return }
            self.withPollLock {
                guard !self.stopped else { return }
                self.releaseObjects()
                if let old = self.client { avahi_client_free(old) }
                self.client = nil
                self.createClient()
            }
        }
    }
}
