#if canImport(Glibc)
import Glibc
#endif
import CAvahi
import CAvahiShim
import Synchronization
import SystemSupport

/// Owns an Avahi client on Avahi's threaded poll, and keeps it alive.
///
/// - Avahi calls its callbacks on the poll's own thread with the poll lock
///   held; everything else that touches Avahi objects takes that lock
///   (`withPollLock`). No Avahi call runs on the Swift cooperative pool without it.
/// - The mutable state below (the client, the backoff, the retry task, the
///   stopped flag, and the subclasses' Avahi objects) is confined to that
///   lock too; code touching it asserts so (`assertPollLockHeld`). Callbacks
///   from Avahi enter through `onPollThread`, which records that the lock is held.
/// - The client is created with `AVAHI_CLIENT_NO_FAIL`, so a missing or
///   restarting avahi-daemon is waited for (`daemonLost` / `clientRunning`).
/// - When the client fails outright (e.g. no D-Bus system bus), it is
///   recreated with exponential backoff.
///
/// Subclasses override `clientRunning(_:)` and `daemonLost()`.
public class AvahiClientOwner: @unchecked Sendable {
    let logger: Logger
    private let poll: OpaquePointer
    /// The thread that holds the poll lock now (0: none), for `assertPollLockHeld`.
    /// Atomic because a thread without the lock reads it to find that out.
    private let lockHolder = Atomic<UInt>(0)

    // Guarded by the poll lock:
    private var clientPointer: OpaquePointer?
    private var backoff: Backoff
    private var retryTask: Task<Void, Never>?
    /// The retry task that `stop()` cancelled (it may still be finishing).
    private var cancelledRetryTask: Task<Void, Never>?
    private var stopped = false
    private var started = false
    private var recurring = RecurringProblem()
    /// Clients created so far (tests check that none is created after `stop`).
    private var clientsCreated = 0

    /// The Avahi client, while there is one. Poll lock held.
    var client: OpaquePointer? {
        assertPollLockHeld()
        return clientPointer
    }

    /// How long to wait before recreating a failed client.
    static let standardBackoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))

    init(label: String, backoff: Backoff = AvahiClientOwner.standardBackoff) throws {
        logger = Logger(label: label)
        self.backoff = backoff
        try AvahiClientOwner.loadLibrary()
        guard let poll = cg_avahi_threaded_poll_new() else {
            throw SystemError("create the Avahi event loop", errno: 12)
        }
        self.poll = poll
    }

    /// Loads avahi-client on first use: a gateway that needs no mDNS never maps
    /// it (nor D-Bus and libsystemd behind it).
    static func loadLibrary() throws(DiscoveryError) {
        var text = [CChar](repeating: 0, count: 320)
        guard cg_avahi_load(&text, text.count) == 1 else {
            throw DiscoveryError(.library, "\(String(nullTerminated: text)) for mDNS (a [device] name or id, 'devices', 'use', 'discover')")
        }
    }

    deinit {
        // Not the overridable stop(): a subclass's stored properties are gone
        // by now. Subclasses stop in their own deinit, so this finds it done.
        stopOwner()
        cg_avahi_threaded_poll_free(poll)
    }

    /// Starts the poll thread and the client.
    func start() {
        let first = withPollLock {
            guard !started, !stopped else { return false }
            started = true
            return true
        }
        guard first else { return }
        guard cg_avahi_threaded_poll_start(poll) == 0 else {
            report("cannot start the Avahi event loop thread")
            return
        }
        withPollLock { createClient() }
    }

    /// Stops the poll thread and frees every Avahi object. Not from a callback
    /// (Avahi's poll thread cannot stop itself).
    func stop() {
        stopOwner()
    }

    private func stopOwner() {
        // Under the lock: a retry on the poll thread or in `retryTask` sees
        // `stopped` and gives up, and no new retry task is made after this.
        let retry: Task<Void, Never>?? = withPollLock {
            guard started, !stopped else { return .none }
            stopped = true
            cancelledRetryTask = retryTask
            defer { retryTask = nil }
            return .some(retryTask)
        }
        guard case .some(let pendingRetry) = retry else { return }
        pendingRetry?.cancel()
        // Waits for the poll thread to exit (it takes the lock to quit, so not under it).
        cg_avahi_threaded_poll_stop(poll)
        withPollLock {
            releaseObjects()
            if let clientPointer { cg_avahi_client_free(clientPointer) }
            clientPointer = nil
        }
    }

    func withPollLock<R>(_ body: () -> R) -> R {
        cg_avahi_threaded_poll_lock(poll)
        defer { cg_avahi_threaded_poll_unlock(poll) }
        return holdingPollLock(body)
    }

    /// Runs a callback from Avahi, which calls it with the poll lock held.
    func onPollThread<R>(_ body: () -> R) -> R {
        holdingPollLock(body)
    }

    private func holdingPollLock<R>(_ body: () -> R) -> R {
        let previous = lockHolder.exchange(UInt(pthread_self()), ordering: .relaxed)
        defer { lockHolder.store(previous, ordering: .relaxed) }
        return body()
    }

    /// Traps unless this thread holds the poll lock (the state's confinement).
    func assertPollLockHeld(file: StaticString = #fileID, line: UInt = #line) {
        precondition(lockHolder.load(ordering: .relaxed) == UInt(pthread_self()),
                     "Avahi state touched without the poll lock", file: file, line: line)
    }

    /// Whether `stop()` ran, and how many clients were ever created (for tests).
    var stoppedAndClientsCreated: (stopped: Bool, clientsCreated: Int) {
        withPollLock { (stopped, clientsCreated) }
    }

    /// Waits until a retry that `stop()` cancelled has finished (for tests).
    func cancelledRetryFinished() async {
        let task = withPollLock { cancelledRetryTask }
        await task?.value
    }

    // MARK: Hooks (called on the poll thread, lock held)

    /// The daemon is reachable: create browsers or entry groups on `client`.
    func clientRunning(_ client: OpaquePointer) {}
    /// The daemon went away: objects made on the client are invalid; free them.
    func releaseObjects() {}
    /// Discovery or publishing is impossible for now; `message` says why.
    func report(_ message: String) {}

    // MARK: Client lifecycle

    /// Poll lock held.
    private func createClient() {
        assertPollLockHeld()
        var error: Int32 = 0
        clientsCreated += 1
        let created = cg_avahi_client_new(cg_avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL, { client, state, userdata in
            guard let client, let userdata else { return }
            let owner = Unmanaged<AvahiClientOwner>.fromOpaque(userdata).takeUnretainedValue()
            owner.onPollThread { owner.clientStateChanged(client, state) }
        }, Unmanaged.passUnretained(self).toOpaque(), &error)
        if let created {
            clientPointer = created
        } else {
            let message = "cannot reach the mDNS service (\(String(cString: cg_avahi_strerror(error)))): is D-Bus running?"
            recurring.report(message, to: logger)
            report(message)
            scheduleRetry()
        }
    }

    private func clientStateChanged(_ client: OpaquePointer, _ state: AvahiClientState) {
        assertPollLockHeld()
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
            let message = "mDNS client failed: \(String(cString: cg_avahi_strerror(cg_avahi_client_errno(client))))"
            recurring.report(message, to: logger)
            report(message)
            scheduleRetry()
        default:
            break
        }
    }

    /// Recreates the client after a backoff delay, off the poll thread. Poll lock held.
    private func scheduleRetry() {
        assertPollLockHeld()
        guard !stopped else { return }
        let delay = backoff.nextDelay()
        logger.debug("retrying mDNS in \(Int(delay.seconds * 1000)) ms")
        retryTask?.cancel()
        // A timer, not a loop: the task sleeps, then retries once under the lock.
        retryTask = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled, let self else { return }
            self.withPollLock {
                guard !self.stopped else { return }
                self.releaseObjects()
                if let old = self.clientPointer { cg_avahi_client_free(old) }
                self.clientPointer = nil
                self.createClient()
            }
        }
    }
}
