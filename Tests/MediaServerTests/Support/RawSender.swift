import CastProtocol
import Foundation
import JSON
import ReceiverSimulator
import Synchronization
import TestSupport
import XCTest

/// A sender speaking raw Cast frames to an in-process simulator, so tests
/// see the receiver's replies exactly (LOAD_FAILED shape included).
final class RawSender: Sendable {
    let simulator: ReceiverSimulator
    private let stream: InMemoryByteStream
    private final class Inbox: Sendable {
        let messages = Mutex<[JSONValue]>([])
    }

    private let inbox = Inbox()
    private let reader: Task<Void, Never>
    private let nextRequest = Mutex(1)

    init(simulator: ReceiverSimulator) async {
        self.simulator = simulator
        let (senderEnd, receiverEnd) = InMemoryByteStream.pair()
        stream = senderEnd
        await simulator.serve(receiverEnd)
        let inbox = self.inbox
        reader = Task {
            var decoder = FrameDecoder()
            do {
                for try await chunk in senderEnd.inbound {
                    decoder.append(chunk)
                    while let message = try? decoder.nextMessage() {
                        if let json = try? message.jsonPayload() { inbox.messages.withLock { $0.append(json) } }
                    }
                }
            } catch {}
        }
    }

    deinit {
        reader.cancel()
        stream.close()
    }

    func send(_ json: JSONValue, to destination: String, namespace: String) {
        let message = CastMessage(sourceID: "sender-test", destinationID: destination, namespace: namespace, json: json)
        if let frame = try? message.framed() { stream.enqueue(frame, completion: nil) }
    }

    /// Waits for a message with `requestId` (real time, bounded).
    func reply(to requestID: Int, timeout: Duration = .seconds(15)) async -> JSONValue? {
        _ = await eventually(timeout: timeout) { self.find(requestID) != nil }
        return find(requestID)
    }

    private func find(_ requestID: Int) -> JSONValue? {
        inbox.messages.withLock { $0 }.first { $0["requestId"]?.intValue == requestID }
    }

    private func requestID() -> Int {
        nextRequest.withLock { value in
            defer { value += 1 }
            return value
        }
    }

    /// CONNECT, LAUNCH the Default Media Receiver, CONNECT to it: its transport id.
    func launchMediaReceiver() async throws -> String {
        send(["type": "CONNECT"], to: CastEndpoint.platformReceiver, namespace: CastNamespace.connection)
        let launch = requestID()
        send(["type": "LAUNCH", "requestId": .int(launch), "appId": "CC1AD845"], to: CastEndpoint.platformReceiver,
             namespace: CastNamespace.receiver)
        let status = await reply(to: launch)
        let transport = try XCTUnwrap(status?["status"]?["applications"]?.arrayValue?.first?["transportId"]?.stringValue)
        send(["type": "CONNECT"], to: transport, namespace: CastNamespace.connection)
        return transport
    }

    /// Sends LOAD and returns the receiver's answer to it.
    func load(_ media: MediaInformation, transport: String) async -> JSONValue? {
        let load = requestID()
        send(["type": "LOAD", "requestId": .int(load), "media": media.json, "autoplay": true], to: transport,
             namespace: CastNamespace.media)
        return await reply(to: load)
    }
}
