import CastClient
import CastProtocol
import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// A request whose caller is cancelled (the daemon stopping, a superseded
/// join) ends at once as cancelled, not at the reply or its timeout: a stop
/// never waits 10 s (or 30 s for a LAUNCH) for a slow receiver.
final class CastChannelCancellationTests: XCTestCase {
    func testACancelledRequestEndsAtOnceAsCancelled() async throws {
        let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
        _ = receiverEnd  // the receiver never answers
        let clock = ManualTimeSource()
        let channel = CastChannel(
            stream: clientEnd,
            configuration: CastChannel.Configuration(
                senderID: "sender-1", senderInfo: ConnectionMessages.SenderInfo(userAgent: "test", version: "1", systemVersion: "Linux")),
            timeSource: clock)
        await channel.start()
        let request = Task {
            try await channel.request(namespace: CastNamespace.receiver, to: CastEndpoint.platformReceiver, timeout: .seconds(30)) {
                ReceiverRequest.getStatus.json(requestID: $0)
            }
        }
        // Written, so it waits for the reply (the clock never moves: no timeout can end it).
        let sent = await eventually { !clientEnd.written.withLock { $0 }.isEmpty && clock.sleeperCount >= 1 }
        XCTAssertTrue(sent)
        let ended = Mutex<(any Error)?>(nil)
        let waiter = Task {
            do {
                _ = try await request.value
            } catch {
                ended.withLock { $0 = error }
            }
        }
        request.cancel()
        // Without the fix the request waits for ever: fail, do not hang.
        let endedAtOnce = await eventually { ended.withLock { $0 } != nil }
        XCTAssertTrue(endedAtOnce, "the cancelled request is still waiting for its reply")
        XCTAssertEqual((ended.withLock { $0 } as? CastError)?.code, .cancelled, "\(String(describing: ended.withLock { $0 }))")
        await channel.close()
        await waiter.value
    }
}
