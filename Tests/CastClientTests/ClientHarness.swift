import CastClient
import CastProtocol
import ReceiverSimulator
import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// A CastClient wired to a ReceiverSimulator through in-memory streams, both
/// on one manual clock.
final class ClientHarness: Sendable {
    let clock = ManualTimeSource()
    let simulator: ReceiverSimulator
    let client: CastClient
    /// What the connector shares with the test.
    final class Shared: Sendable {
        /// Client-side and receiver-side ends of every connection made, in order.
        let connections = Mutex<[(client: InMemoryByteStream, receiver: InMemoryByteStream)]>([])
        /// When false, connecting fails as with an unreachable device.
        let reachable = Mutex(true)
    }

    let shared = Shared()

    init(faults: SimulatorFaults = SimulatorFaults(), deviceAuth: SimulatorDeviceAuth? = nil,
         configure: (inout CastClient.Configuration) -> Void = { _ in },
         configureSimulator: (inout ReceiverSimulator.Configuration) -> Void = { _ in }) throws {
        var simulatorConfiguration = ReceiverSimulator.Configuration(pingInterval: .seconds(5), faults: faults)
        simulatorConfiguration.deviceAuth = deviceAuth
        configureSimulator(&simulatorConfiguration)
        let simulator = try ReceiverSimulator(configuration: simulatorConfiguration, timeSource: clock)
        self.simulator = simulator
        var configuration = CastClient.Configuration(host: "tv.local", backoff: Backoff(jitter: 0))
        configure(&configuration)
        let shared = self.shared
        client = CastClient(configuration: configuration, connector: { host, port in
            guard shared.reachable.withLock({ $0 }) else {
                throw CastError(.deviceUnavailable, "\(host):\(port) unreachable (test)")
            }
            let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
            shared.connections.withLock { $0.append((clientEnd, receiverEnd)) }
            await simulator.serve(receiverEnd)
            return clientEnd
        }, timeSource: clock)
    }

    /// Starts the client and waits until it is connected.
    func startConnected(file: StaticString = #filePath, line: UInt = #line) async {
        await client.start()
        let connected = await eventually { await client.currentState.phase == .connected }
        XCTAssertTrue(connected, "client did not connect", file: file, line: line)
    }

    func state() async -> CastClientState { await client.currentState }

    /// Every message the client has written, over all connections.
    func sentMessages() -> [CastMessage] {
        shared.connections.withLock { $0 }.flatMap { pair -> [CastMessage] in
            var decoder = FrameDecoder()
            decoder.append(pair.client.written.withLock { $0 }.flatMap { $0 })
            var messages: [CastMessage] = []
            while let message = try? decoder.nextMessage() { messages.append(message) }
            return messages
        }
    }

    /// `type` of every JSON message the client sent on `namespace`.
    func sentTypes(on namespace: String) -> [String] {
        sentMessages().filter { $0.namespace == namespace }.compactMap { try? $0.jsonPayload()["type"]?.stringValue }
    }

    /// Waits until the client is between connection attempts.
    func waitUntilReconnecting() async -> Bool {
        await eventually {
            if case .waitingToReconnect = await client.currentState.phase { return true }
            return false
        }
    }

    /// Makes the simulator hold every reply for `delay`.
    func delayReplies(by delay: Duration) async {
        var faults = await simulator.faults
        faults.replyDelay = delay
        await simulator.setFaults(faults)
    }

    /// Loads a 100-second test video and waits until it plays.
    func loadVideo(title: String = "Test Video", tracks: [MediaTrack] = [], file: StaticString = #filePath, line: UInt = #line) async throws {
        let media = MediaInformation(contentID: "http://media.test/video.mp4", contentType: "video/mp4",
                                     metadata: MediaMetadata(title: title), duration: 100, tracks: tracks)
        try await client.load(LoadRequest(media: media))
        let playing = await eventually { await client.currentState.media?.playerState == .playing }
        XCTAssertTrue(playing, "media did not start", file: file, line: line)
    }
}
