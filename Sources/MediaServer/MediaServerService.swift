import SystemSupport

/// The media server as a daemon service: listens toward each receiver
/// address it is given (the first, then again whenever the device moves)
/// and stops serving when its task is cancelled.
public struct MediaServerService: Service {
    public let name = "media"
    public let server: MediaServer
    private let receiverAddresses: AsyncStream<String>
    private let logger = Logger(label: "media-server")

    /// `receiverAddresses`: numeric addresses of the receiver, as discovery
    /// or the configuration learns them. Until the first one the server does
    /// not listen (no address is known to be the right one).
    public init(server: MediaServer, receiverAddresses: AsyncStream<String>) {
        self.server = server
        self.receiverAddresses = receiverAddresses
    }

    public func run() async throws {
        for await receiver in receiverAddresses {
            do {
                try await server.listen(towardReceiver: receiver)
            } catch {
                // Keep serving where we were; the next address may work.
                logger.warning("\(error)")
            }
        }
        // The address stream ended: keep serving until asked to stop.
        await waitUntilCancelled()
        await server.stop()
    }
}
