// libFuzzer entry for what anyone who may publish to a room's cmd topic can
// send: the MQTT command payload parser, its redaction, the reply it builds,
// and the update request file a line may become. Built with the JSON
// module's sources, Sources/Fleet/FleetCommandPayload.swift and
// GatewayModel's UpdateRequest and UpdateReport by Fuzz/run.sh; any crash, hang or
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
        // An update request that validates can put nothing but its own lines
        // into the request file the root helper reads.
        let words = request.line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.count >= 2, let update = try? UpdateRequest(url: words[1], sha256: words.count > 2 ? words[2] : nil) {
            let lines = update.fileText.split(separator: "\n", omittingEmptySubsequences: false)
            guard lines.count == (update.sha256 == nil ? 2 : 3), lines[0].lowercased().hasPrefix("url=http"), lines.last == "",
                  !update.fileText.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n") || $0.value >= 0x7F || $0 == " " }) else {
                fatalError("an update request file with more than its lines: \(update.fileText.debugDescription)")
            }
        }
        let reply = FleetCommandPayload.reply(id: request.id, ok: true, lines: [request.line])
        guard (try? JSONValue(parsing: reply)) != nil else { fatalError("reply is not JSON") }
    case .failure(let error):
        let reply = FleetCommandPayload.reply(id: error.id, ok: false, lines: [error.message])
        guard (try? JSONValue(parsing: reply)) != nil else { fatalError("error reply is not JSON") }
    }
    return 0
}
