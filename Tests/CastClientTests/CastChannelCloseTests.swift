import CastClient
import CastProtocol
import SystemSupport
import TestSupport
import XCTest

/// A CLOSE from an app's transport ends our virtual connection to it: the
/// channel forgets it as the CLOSE arrives, so whatever runs next (a join of
/// the same transport) CONNECTs again.
final class CastChannelCloseTests: XCTestCase {
    func testACloseIsForgottenBeforeItIsDeliveredSoTheNextRequestConnectsAgain() async throws {
        let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
        _ = receiverEnd
        let channel = CastChannel(
            stream: clientEnd,
            configuration: CastChannel.Configuration(
                senderID: "sender-1", senderInfo: ConnectionMessages.SenderInfo(userAgent: "test", version: "1", systemVersion: "Linux")),
            timeSource: ManualTimeSource())
        await channel.start()
        try await channel.connect(to: "web-7")
        XCTAssertEqual(connects(to: "web-7", in: clientEnd), 1)

        clientEnd.inject(try CastMessage(sourceID: "web-7", destinationID: "sender-1", namespace: CastNamespace.connection,
                                         json: ConnectionMessages.close).framed())
        var messages = channel.messages.makeAsyncIterator()
        let inbound = await messages.next()
        XCTAssertEqual(inbound?.reply.type, "CLOSE")
        // Right after hearing of the CLOSE, as the client's message loop would.
        try await channel.connect(to: "web-7")
        XCTAssertEqual(connects(to: "web-7", in: clientEnd), 2, "no CONNECT after the peer closed the virtual connection")
        await channel.close()
    }

    private func connects(to destination: String, in stream: InMemoryByteStream) -> Int {
        var decoder = FrameDecoder()
        decoder.append(stream.written.withLock { $0 }.flatMap { $0 })
        var count = 0
        while let message = try? decoder.nextMessage() {
            if message.destinationID == destination, message.namespace == CastNamespace.connection,
               (try? message.jsonPayload()["type"]?.stringValue) == "CONNECT" {
                count += 1
            }
        }
        return count
    }
}
