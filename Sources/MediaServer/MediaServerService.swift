import ServiceLifecycle
import SystemSupport

/// The media server as a daemon service: listens toward each receiver
/// address it is given (the first, then again whenever the device moves)
/// and stops serving when its task is cancelled.
///
/// A listen that fails (the port taken by another program, no route yet) is
/// retried here with backoff on `clock`, toward the latest address, until it
/// works. The service does not throw for it: a restart by the supervisor
/// would only repeat the same bind after dropping the address stream, and
/// here one outage gives one warning and one problem shown in `status`,
/// cleared when serving starts.
public struct MediaServerService: Service {
    public let name = "media"
    public let server: MediaServer
    private let receiverAddresses: AsyncStream<String>
    private let clock: any TimeSource
    private let backoff: Backoff
    private let report: @Sendable (String?) async -> Void
    private let logger = Logger(label: "media-server")

    /// `receiverAddresses`: numeric addresses of the receiver, as discovery
    /// or the configuration learns them. Until the first one the server does
    /// not listen (no address is known to be the right one). `report` is
    /// given the problem while listening fails, and nil once it works.
    public init(server: MediaServer, receiverAddresses: AsyncStream<String>, clock: any TimeSource = SystemTimeSource(),
                backoff: Backoff = Backoff(initial: .seconds(1), maximum: .seconds(30)),
                report: @escaping @Sendable (String?) async -> Void = { _ in }) {
        self.server = server
        self.receiverAddresses = receiverAddresses
        self.clock = clock
        self.backoff = backoff
        self.report = report
    }

    private enum Event: Sendable {
        case address(String)
        /// A retry timer fired; stale when its generation is not the latest.
        case retry(generation: Int)
    }

    public func run() async throws {
        let (events, sink) = AsyncStream<Event>.makeStream()
        let addresses = receiverAddresses
        await MediaServer.preload()
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await address in addresses { sink.yield(.address(address)) }
                // The address stream ended: keep serving until asked to stop.
            }
            var wanted: String?
            var backoff = self.backoff
            var problem = RecurringProblem()
            var reported: String?
            var generation = 0
            loop: for await event in events {
                switch event {
                case .address(let address):
                    guard ListenAddress(host: address, port: 0) != nil else {
                        logger.warning("media server: ignoring receiver address '\(address)': not a numeric IP address")
                        continue
                    }
                    wanted = address
                    backoff.reset()
                case .retry(let due):
                    guard due == generation else { continue }
                }
                guard let receiver = wanted else { continue }
                generation += 1
                do {
                    try await server.listen(towardReceiver: receiver)
                    backoff.reset()
                    if reported != nil {
                        logger.notice("media server: serving again on \(server.endpoint.map { "\($0)" } ?? "?")")
                        problem.clear()
                        reported = nil
                        await report(nil)
                    }
                } catch {
                    if Task.isCancelled { break loop }
                    // Retry toward the latest address (a new one also retries at once).
                    let message = "\(error); retrying"
                    problem.report(message, to: logger)
                    if reported != message {
                        reported = message
                        await report(message)
                    }
                    let delay = backoff.nextDelay()
                    let retry = generation
                    let clock = self.clock
                    group.addTask {
                        guard (try? await clock.sleep(for: delay)) != nil else { return }
                        sink.yield(.retry(generation: retry))
                    }
                }
            }
            group.cancelAll()
        }
        await server.stop()
    }
}
