// fuzz-options: -max_len=131072 -dict=Fuzz/dictionaries/cast-decoding.dict
//
// Decoding: everything a receiver (or anyone on the LAN) can send, up to
// the typed values: frame splitting, the CastMessage protobuf, JSON payloads
// and the typed views the client builds from them. The first byte picks the
// layer (0: byte stream in irregular chunks, 1: protobuf body, 2: JSON).
// whole-path.swift takes the same bytes on through the client to the outputs.
import CastProtocol
import JSON

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCastDecoding(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Fuzz.bytes(data, size)
    guard let mode = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    switch mode % 3 {
    case 0:
        // A byte stream in irregular chunks through the frame decoder.
        var decoder = FrameDecoder()
        var offset = 0
        var chunk = 1
        while offset < input.count {
            let end = min(offset + chunk, input.count)
            decoder.append(input[offset..<end])
            offset = end
            chunk = chunk % 7 + 1
            while true {
                do {
                    guard let message = try decoder.nextMessage() else { break }
                    inspect(message)
                } catch let error where error.losesFraming {
                    return 0
                } catch {
                    continue
                }
            }
        }
    case 1:
        // A bare protobuf body.
        if let message = try? CastMessage(serialized: input) {
            inspect(message)
            _ = try? CastMessage(serialized: message.serialized())
        }
    default:
        // A bare JSON payload.
        if let json = try? JSONValue(parsing: input) {
            inspectJSON(json)
            let again = try? JSONValue(parsing: json.serialized)
            if again != json { fatalError("JSON did not round-trip: \(json.serialized)") }
        }
    }
    return 0
}

private func inspect(_ message: CastMessage) {
    Fuzz.use(message.description)
    if let json = try? message.jsonPayload() { inspectJSON(json) }
}

private func inspectJSON(_ json: JSONValue) {
    let reply = CastReply(json: json)
    Fuzz.use(reply.reason)
    let receiver = ReceiverStatus(message: json)
    Fuzz.use(receiver.activeApplication?.supportsMedia)
    Fuzz.use(receiver.message(requestID: reply.requestID ?? 0).serialized)
    for status in MediaStatus.entries(message: json) {
        Fuzz.use(status.json.serialized)
        Fuzz.use(status.supportedCommands.names)
    }
    Fuzz.use(json.redacted.serialized)
}
