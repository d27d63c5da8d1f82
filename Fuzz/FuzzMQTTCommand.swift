// libFuzzer entry for what anyone who may publish to a room's cmd topic can
// send: the MQTT command payload parser, its redaction and the reply it
// builds. Built with the JSON module's sources and
// Sources/Fleet/FleetCommandPayload.swift by Fuzz/run.sh; any crash, hang or
// sanitizer report is a bug.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMQTTCommand(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    switch FleetCommandPayload.parse(payload) {
    case .success(let request):
        // What is accepted is one line without control characters, and the
        // reply echoing its id is valid JSON.
        if request.line.isEmpty || request.line.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) {
            fatalError("accepted an unsafe command line: \(request.line.debugDescription)")
        }
        _ = FleetCommandPayload.redacted(request.line)
        let reply = FleetCommandPayload.reply(id: request.id, ok: true, lines: [request.line])
        guard (try? JSONValue(parsing: reply)) != nil else { fatalError("reply is not JSON") }
    case .failure(let error):
        let reply = FleetCommandPayload.reply(id: error.id, ok: false, lines: [error.message])
        guard (try? JSONValue(parsing: reply)) != nil else { fatalError("error reply is not JSON") }
    }
    return 0
}
