import Dispatch
import GatewayModel
import ServiceLifecycle
import SystemSupport

/// Key events from lircd, read from its socket. Bad lines are logged and
/// skipped. Run it as a `ReopeningSource` (see `service`): when lircd is
/// absent or restarts, the socket is reconnected with backoff and the gateway
/// runs fine meanwhile.
///
/// The socket is connected here rather than with liblirc_client, whose
/// `lirc_get_local_socket` leaves its socket open when `connect` fails: one
/// descriptor per retry, and a box without lircd ran out of them in a day.
public struct LircSource: ReopenableDevice {
    /// lirc's own default when neither the config nor `LIRC_SOCKET_PATH` names one.
    public static let defaultSocket = "/var/run/lirc/lircd"

    /// The socket path; nil uses `LIRC_SOCKET_PATH` or lirc's default.
    public let socketPath: String?
    private let sink: InputSink

    public init(socketPath: String? = nil, sink: InputSink) {
        self.socketPath = socketPath
        self.sink = sink
    }

    /// The path that is connected: the configured one, `LIRC_SOCKET_PATH`, or lirc's default.
    public var resolvedPath: String {
        socketPath ?? Environment.value("LIRC_SOCKET_PATH") ?? LircSource.defaultSocket
    }

    /// The source as a service that reconnects with backoff.
    /// `quiet`: lircd is not asked for by the configuration; it is still
    /// picked up when it appears, but its absence is no warning.
    public func service(timeSource: any TimeSource = SystemTimeSource(), quiet: Bool = false,
                        availability: @escaping @Sendable (String?) async -> Void = { _ in }) -> ReopeningSource<LircSource> {
        ReopeningSource(name: "lirc", device: self, queue: DispatchQueue(label: "cast-gateway.lirc"), timeSource: timeSource,
                        quiet: quiet, availability: availability)
    }

    public func open() throws -> FileDescriptor {
        let path = resolvedPath
        let fd: FileDescriptor
        do {
            fd = try UnixSocket.connect(to: path)  // closes its socket when connect fails
        } catch {
            throw DeviceProblem.retry("cannot connect to lircd at \(path) (\(error.reason)): is lircd running?")
        }
        do {
            try fd.setNonBlocking()
        } catch {
            fd.close()
            throw DeviceProblem.retry("lircd socket \(path): \(error)")
        }
        Logger(label: "lirc").notice("connected to lircd at \(path)")
        return fd
    }

    public func serve(_ fd: FileDescriptor, on queue: DispatchQueue) async -> String {
        let logger = Logger(label: "lirc")
        var lines = LineSplitter(maximumLength: 1024)
        for await event in FileDescriptorReader.events(fd: fd, queue: queue) {
            switch event {
            case .bytes(let bytes):
                for piece in lines.feed(bytes) {
                    switch piece {
                    case .tooLong:
                        logger.warning("discarded an over-long line from lircd")
                    case .line(let text) where text.isEmpty || ["BEGIN", "END", "SUCCESS", "SIGHUP"].contains(text):
                        continue  // lircd's replies to commands on the same socket
                    case .line(let text):
                        guard let line = LircLine(Substring(text)) else {
                            logger.warning("skipped a malformed lircd line: \(text.debugDescription)")
                            continue
                        }
                        var input = line.event
                        input.receivedAt = ContinuousClock.now
                        sink.yield(input)
                    }
                }
            case .ended(let reason):
                return "lost lircd (\(reason == "end of file" ? "lircd closed the connection" : reason))"
            }
        }
        return "stopped"
    }
}
