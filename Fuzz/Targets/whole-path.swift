// fuzz-options: -max_len=131072 -dict=Fuzz/dictionaries/whole-path.dict -detect_leaks=0
//
// (-detect_leaks=0: a leak check after every input would cost two thirds of
// the time here; LeakSanitizer still checks once when the run ends and fails it.)
//
// Whole path: a hostile receiver's bytes through the REAL daemon objects,
// without sockets:
//
//   bytes -> in-memory ByteStream -> CastChannel (FrameDecoder, CastMessage,
//   JSONValue, heartbeat) -> CastClient (RECEIVER_STATUS / MEDIA_STATUS applied
//   to CastClientState) -> Gateway (publish: CastClientState -> GatewayState)
//   -> every output: StatusLine.render/json/summaryKey, StatusAnnouncer, the
//   sd_notify STATUS text, SerialConsole.Push, the console's `status` reply
//   (CommandInterpreter), LEDPattern.patterns and a LEDPanel over fake lines.
//
// Input: records separated by a line `---` (a text file you can edit):
//
//   media                      <- header: receiver | media | connection | heartbeat
//   {"type":"MEDIA_STATUS",...}   | urn:… | raw; optional from=ID to=ID
//   ---
//   receiver
//   {"type":"RECEIVER_STATUS",...}
//
// Each record is framed with the real CastMessage encoder (a `raw` record,
// or an unknown header, is written as it is, so framing is fuzzed too). The
// harness first plays the handshake: it answers the client's GET_STATUS with
// an app (transport `web-fuzz`, the default `from` of media and connection
// records) and waits for the client to join it and ask for its media status
// (request id 2, so a record with "requestId":2 answers that request).
// After each record it sends a PING (from `fuzz-sync-N`) and waits for the
// PONG, so the channel has handled the record; `Gateway.perform(.none)` then
// takes the client's state into the gateway, and every output is rendered.
import CastClient
import CastProtocol
import GatewayCore
import GatewayModel
import Interpreter
import JSON
import StatusOutput
import Synchronization
import SystemSupport
import TestSupport

private let transportID = "web-fuzz"
private let maximumRecords = 48

private let setUp: Void = {
    Logger.level = .debug
    // Log lines are an output too: no forged lines, no terminal escapes.
    Logger.setSink { _, text in
        Fuzz.trace("log: \(text)")
        Fuzz.requirePlainLine(text, "a log line")
        Fuzz.require(text.utf8.count <= 8192, "a log line is at most 8 KiB, not \(text.utf8.count) bytes: \(Fuzz.quote(text))")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWholePath(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = setUp
    let records = Array(Fuzz.split(Fuzz.bytes(data, size), on: Array("\n---\n".utf8)).prefix(maximumRecords))
    Fuzz.trace("input of \(size) bytes, \(records.count) records")
    Fuzz.runBlocking { await WholePath(records: records).run() }
    return 0
}

private struct WholePath {
    let records: [[UInt8]]

    func run() async {
        let time = ManualTimeSource()  // never advanced: no heartbeat timeouts, no reconnects
        let link = MemoryLink()
        let receiver = ScriptedReceiver(link: link)
        let settings = GatewaySettings(device: DeviceSettings(target: .address(host: "fuzz.invalid", port: 8009)))
        let gateway = Gateway(settings: settings, connector: { _, _ in link.clientEnd }, timeSource: time)
        let interpreter = CommandInterpreter(gateway: gateway, version: "fuzz")
        let leds: [LEDRole: any LEDLine] = Dictionary(uniqueKeysWithValues: LEDRole.allCases.map { ($0, RecordingLED()) })
        let panel = LEDPanel(lines: leds, timeSource: time)
        var announcer = StatusAnnouncer()

        var events = ScriptedReceiver.Events(iterator: receiver.events.makeAsyncIterator())
        await gateway.start()
        if let request = await events.nextRequest(CastNamespace.receiver) {
            receiver.send(namespace: CastNamespace.receiver, from: CastEndpoint.platformReceiver, text: """
                {"type":"RECEIVER_STATUS","requestId":\(request),"status":{"volume":{"level":0.5,"muted":false},\
                "applications":[{"appId":"CC1AD845","displayName":"Default Media Receiver","sessionId":"fuzz-session",\
                "transportId":"\(transportID)","namespaces":[{"name":"\(CastNamespace.media)"}]}]}}
                """)
            _ = await events.nextRequest(CastNamespace.media)
        }
        var framing = FrameDecoder()
        var linkClosed = false
        for (index, record) in records.enumerated() where !linkClosed {
            let bytes = Self.frame(record)
            receiver.write(bytes)
            // The channel's own decoder sees exactly these bytes: mirror it to
            // know whether a PING would be read as a frame of its own.
            framing.append(bytes)
            var framingLost = false
            while true {
                do {
                    guard try framing.nextMessage() != nil else { break }
                } catch let error where error.losesFraming {
                    framingLost = true
                    break
                } catch {
                    continue
                }
            }
            if framingLost {
                linkClosed = true
                await events.waitUntilClosed()
            } else if framing.bufferedByteCount == 0 {
                let sync = "fuzz-sync-\(index)"
                receiver.send(namespace: CastNamespace.heartbeat, from: sync, text: #"{"type":"PING"}"#)
                linkClosed = !(await events.waitForPong(to: sync))
            }
            try? await gateway.perform(.none)  // takes the client's current state into the gateway
            await render(gateway, time: time, announcer: &announcer, panel: panel)
            for line in await interpreter.run("status") {
                Fuzz.requirePlainLine(line, "the console's status reply")
            }
        }
        await gateway.stop()
        link.close()
        await render(gateway, time: time, announcer: &announcer, panel: panel)
        await panel.shutdown()
        await receiver.finish()
    }

    private func render(_ gateway: Gateway, time: ManualTimeSource, announcer: inout StatusAnnouncer, panel: LEDPanel) async {
        let state = await gateway.state
        let now: Double = time.now.seconds
        for offset: Double in [0, 1.5, 86_400 * 365] {
            Outputs.renderAll(state, now: now + offset, announcer: &announcer)
        }
        await panel.show(LEDPattern.patterns(for: state, starting: false, inputMissing: !state.inputProblems.isEmpty))
    }

    /// One record as bytes on the wire.
    static func frame(_ record: [UInt8]) -> [UInt8] {
        let newline = record.firstIndex(of: UInt8(ascii: "\n")) ?? record.endIndex
        let header = String(decoding: record[..<newline], as: UTF8.self).split(separator: " ").map(String.init)
        let body = newline < record.endIndex ? Array(record[(newline + 1)...]) : []
        let namespace: String
        var source: String
        switch header.first ?? "" {
        case "raw": return body
        case "receiver": (namespace, source) = (CastNamespace.receiver, CastEndpoint.platformReceiver)
        case "media": (namespace, source) = (CastNamespace.media, transportID)
        case "connection": (namespace, source) = (CastNamespace.connection, transportID)
        case "heartbeat": (namespace, source) = (CastNamespace.heartbeat, CastEndpoint.platformReceiver)
        case let name where name.hasPrefix("urn:"): (namespace, source) = (name, CastEndpoint.platformReceiver)
        default: return record
        }
        var destination = "*"
        for option in header.dropFirst() {
            if option.hasPrefix("from=") { source = String(option.dropFirst(5)) }
            if option.hasPrefix("to=") { destination = String(option.dropFirst(3)) }
        }
        let message = CastMessage(sourceID: source, destinationID: destination, namespace: namespace,
                                  payload: .string(String(decoding: body, as: UTF8.self)))
        return (try? message.framed()) ?? body
    }
}

/// The receiver's end of the in-memory link: writes frames, and reads what
/// the client sends (requests, PONGs) as events.
private final class ScriptedReceiver: Sendable {
    enum Event: Sendable {
        case request(namespace: String, type: String, id: Int?)
        case pong(to: String)
    }

    struct Events {
        var iterator: AsyncStream<Event>.Iterator

        /// The request id of the next GET_STATUS on `namespace`; nil when the link closed.
        mutating func nextRequest(_ namespace: String) async -> Int? {
            while let event = await iterator.next() {
                if case .request(namespace, "GET_STATUS", let id) = event { return id ?? 0 }
            }
            return nil
        }

        /// True when the PONG to `destination` arrived, false when the link closed first.
        mutating func waitForPong(to destination: String) async -> Bool {
            while let event = await iterator.next() {
                if case .pong(destination) = event { return true }
            }
            return false
        }

        mutating func waitUntilClosed() async {
            while await iterator.next() != nil {}
        }
    }

    private let link: MemoryLink
    let events: AsyncStream<Event>
    private let reader: Task<Void, Never>

    init(link: MemoryLink) {
        self.link = link
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        self.events = events
        reader = Task {
            var decoder = FrameDecoder()
            do {
                for await chunk in link.fromClient {
                    decoder.append(chunk)
                    while let message = try decoder.nextMessage() {
                        guard let json = try? message.jsonPayload(), let type = json["type"]?.stringValue else { continue }
                        if message.namespace == CastNamespace.heartbeat, type == "PONG" {
                            continuation.yield(.pong(to: message.destinationID))
                        } else {
                            continuation.yield(.request(namespace: message.namespace, type: type, id: json["requestId"]?.intValue))
                        }
                    }
                }
            } catch {}
            continuation.finish()
        }
    }

    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        link.send(bytes)
    }

    func send(namespace: String, from source: String, text: String) {
        let message = CastMessage(sourceID: source, destinationID: "*", namespace: namespace, payload: .string(text))
        if let frame = try? message.framed() { write(frame) }
    }

    func finish() async {
        link.close()
        await reader.value
    }
}
