import JSON
import Synchronization

/// Where a session's command replies go out. The tasks that await replies
/// publish them here themselves, in their order, without a hop through the
/// session's loop; only a failure goes to the loop too (the state shows it).
/// Closed before the goodbye: a reply that comes after the DISCONNECT is
/// dropped, as a reply the loop never read was before.
final class FleetReplyOutlet: Sendable {
    private let client: any MQTTClient
    private let topic: String
    private let failures: AsyncStream<FleetSession.Input>.Continuation
    private let open = Mutex(true)

    init(client: any MQTTClient, topic: String, failures: AsyncStream<FleetSession.Input>.Continuation) {
        self.client = client
        self.topic = topic
        self.failures = failures
    }

    /// Publishes the reply to `request` (a `creds` secret scrubbed out); a
    /// failure is also handed to the loop.
    func answer(_ request: FleetCommandRequest, with reply: FleetReply) {
        // Only a `creds` line can carry a secret: no other reply is scanned.
        let lines = FleetCommandPayload.isCredentialCommand(request.line)
            ? FleetReplyOutlet.scrubbed(reply.lines, for: request.line) : reply.lines
        let message = MQTTMessage(topic: topic, payload: FleetCommandPayload.reply(id: request.id, ok: reply.ok, lines: lines))
        open.withLock { if $0 { client.publish(message) } }
        if !reply.ok { failures.yield(.commandFailed(request, lines: lines)) }
    }

    /// A command the session itself turns away (unreadable, too many, not run).
    func refuse(id: JSONValue, lines: [String]) {
        let message = MQTTMessage(topic: topic, payload: FleetCommandPayload.reply(id: id, ok: false, lines: lines))
        open.withLock { if $0 { client.publish(message) } }
    }

    /// Nothing more goes out (the session says goodbye next).
    func close() {
        open.withLock { $0 = false }
    }

    /// A `creds` secret never leaves in a reply, whatever the handler said.
    static func scrubbed(_ lines: [String], for line: String) -> [String] {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let secret = words.dropFirst().joined(separator: " ")
        guard secret.count >= 3, secret != "clear" else { return lines }
        return lines.map { $0.replacing(secret, with: "<redacted>") }
    }
}
