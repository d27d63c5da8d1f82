#if canImport(Glibc)
import Glibc
#endif
import CLirc
import Dispatch
import GatewayModel
import SystemSupport

/// Key events from lircd, read from its socket (opened with liblirc_client)
/// by a Dispatch read source. Bad lines are logged and skipped. When lircd
/// is absent or restarts, the source reconnects with backoff; the gateway
/// runs fine without it.
public final class LircSource: @unchecked Sendable {
    public let events: AsyncStream<InputEvent>
    /// The socket path; nil uses `LIRC_SOCKET_PATH` or lirc's default.
    public let socketPath: String?
    private let continuation: AsyncStream<InputEvent>.Continuation
    private let queue = DispatchQueue(label: "cast-gateway.lirc")
    private let logger = Logger(label: "lirc")
    private let availability: @Sendable (String?) -> Void
    // On `queue` only:
    private var source: DispatchSourceRead?
    private var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
    private var pending: [UInt8] = []
    private var discarding = false
    private var stopped = false
    private var recurring = RecurringProblem()

    /// `availability` is called with nil when connected and with the reason when not.
    public init(socketPath: String? = nil, availability: @escaping @Sendable (String?) -> Void = { _ in }) {
        self.socketPath = socketPath
        self.availability = availability
        (events, continuation) = AsyncStream.makeStream(of: InputEvent.self)
    }

    public func start() {
        queue.async { self.connect() }
    }

    public func stop() {
        queue.async {
            self.stopped = true
            self.source?.cancel()
            self.source = nil
            self.continuation.finish()
        }
    }

    private var describedPath: String { socketPath ?? "lircd's default socket" }

    /// On `queue`: a blocking connect to a local socket, off the cooperative pool.
    private func connect() {
        guard !stopped else { return }
        let fd = lirc_get_local_socket(socketPath, 1)
        guard fd >= 0 else {
            let problem = "cannot connect to lircd at \(describedPath): \(String(cString: strerror(-fd))); is lircd running?"
            recurring.report(problem, to: logger)
            availability(problem)
            let delay = backoff.nextDelay()
            queue.asyncAfter(deadline: .now() + delay.seconds) { self.connect() }
            return
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        logger.notice("connected to lircd at \(describedPath)")
        recurring.clear()
        backoff.reset()
        availability(nil)
        pending.removeAll()
        discarding = false
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { self.readAvailable(fd) }
        source.setCancelHandler { close(fd) }
        self.source = source
        source.resume()
    }

    private func readAvailable(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                consume(buffer[0..<count])
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            disconnected(count == 0 ? "lircd closed the connection" : String(cString: strerror(errno)))
            return
        }
    }

    private func consume(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                if !discarding {
                    pending.append(byte)
                    if pending.count > 1024 {
                        logger.warning("discarded an over-long line from lircd")
                        pending.removeAll()
                        discarding = true
                    }
                }
                continue
            }
            defer {
                pending.removeAll(keepingCapacity: true)
                discarding = false
            }
            guard !discarding, !pending.isEmpty else { continue }
            let text = String(decoding: pending, as: UTF8.self)
            if let line = LircLine(Substring(text)) {
                var event = line.event
                event.receivedAt = ContinuousClock.now
                continuation.yield(event)
            } else if !["BEGIN", "END", "SUCCESS", "SIGHUP"].contains(text) {
                logger.warning("skipped a malformed lircd line: \(text.debugDescription)")
            }
        }
    }

    private func disconnected(_ reason: String) {
        source?.cancel()
        source = nil
        guard !stopped else { return }
        let problem = "lost lircd (\(reason)); reconnecting"
        logger.warning(problem)
        availability(problem)
        let delay = backoff.nextDelay()
        queue.asyncAfter(deadline: .now() + delay.seconds) { self.connect() }
    }
}
