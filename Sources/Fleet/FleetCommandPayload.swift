#if canImport(GatewayModel)
import GatewayModel
#endif
#if canImport(JSON)
import JSON
#endif

/// A command received on a `cmd` topic, validated.
public struct FleetCommandRequest: Sendable, Equatable {
    /// The caller's correlation id (`.string`, `.number` or `.null`), echoed in the reply.
    public var id: JSONValue
    /// One console command line, without control characters.
    public var line: String

    public init(id: JSONValue = .null, line: String) {
        self.id = id
        self.line = line
    }
}

/// Why a payload is not a command, and the id to answer with (null when unknown).
public struct FleetPayloadError: Error, Sendable, Equatable {
    public var id: JSONValue
    public var message: String

    public init(id: JSONValue = .null, _ message: String) {
        self.id = id
        self.message = message
    }
}

/// Parses and phrases the payloads of the command and reply topics. Pure
/// (no I/O), so it is fuzzed on its own (Fuzz/FuzzMQTTCommand.swift).
///
/// A payload is either a plain command line (`vol 30`) or a JSON object
/// `{"id": "...", "command": "..."}`. Anything else — binary, invalid UTF-8,
/// oversized, control characters, several lines, invalid JSON, a missing or
/// non-string command — is rejected with a message for the reply.
public enum FleetCommandPayload {
    /// Commands are short; anything longer is not one.
    public static let maximumBytes = 4096
    /// The longest id echoed back.
    public static let maximumIDBytes = 256

    public static func parse(_ payload: [UInt8]) -> Result<FleetCommandRequest, FleetPayloadError> {
        guard payload.count <= maximumBytes else {
            return .failure(FleetPayloadError("payload of \(payload.count) bytes rejected: a command is at most \(maximumBytes) bytes"))
        }
        let text = String(decoding: payload, as: UTF8.self)
        guard text.utf8.elementsEqual(payload) else {
            return .failure(FleetPayloadError("payload rejected: not valid UTF-8 text (send a command line or a JSON object)"))
        }
        let body = trimmed(text)
        guard !body.isEmpty else { return .failure(FleetPayloadError("empty command")) }
        guard body.hasPrefix("{") else {
            return checkedLine(body, id: .null).map { FleetCommandRequest(id: .null, line: $0) }
        }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: payload)
        } catch {
            return .failure(FleetPayloadError("payload rejected: \(error)"))
        }
        guard let object = json.objectValue else {
            return .failure(FleetPayloadError("payload rejected: expected {\"id\": \"...\", \"command\": \"...\"}"))
        }
        let id = object["id"] ?? .null
        switch id {
        case .null: break
        case .string(let value) where value.utf8.count <= maximumIDBytes: break
        case .number(let value) where value.isFinite: break
        default:
            return .failure(FleetPayloadError("payload rejected: \"id\" must be a string of at most \(maximumIDBytes) bytes or a number"))
        }
        guard let command = object["command"] else {
            return .failure(FleetPayloadError(id: id, "payload rejected: no \"command\" member"))
        }
        guard let line = command.stringValue else {
            return .failure(FleetPayloadError(id: id, "payload rejected: \"command\" must be a string such as \"pause\""))
        }
        let commandLine = trimmed(line)
        guard !commandLine.isEmpty else { return .failure(FleetPayloadError(id: id, "empty command")) }
        return checkedLine(commandLine, id: id).map { FleetCommandRequest(id: id, line: $0) }
    }

    /// Whether `line` is a `creds` command, whose argument is a secret.
    public static func isCredentialCommand(_ line: String) -> Bool {
        let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first?.lowercased()
        return word == "creds" || word == "credentials"
    }

    /// The line as it may appear in logs and replies: a `creds` argument
    /// becomes `<redacted>`; an `update` URL loses its query and user info
    /// (a signed download URL carries its token there).
    public static func redacted(_ line: String) -> String {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        if words.first?.lowercased() == "update", words.count >= 2 {
            return ([String(words[0]), UpdateRequest.shownURL(String(words[1]))] + words.dropFirst(2).map(String.init)).joined(separator: " ")
        }
        guard isCredentialCommand(line) else { return line }
        let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? "creds"
        return "\(word) <redacted>"
    }

    /// `{"id":...,"ok":...,"lines":[...]}`.
    public static func reply(id: JSONValue, ok: Bool, lines: [String]) -> [UInt8] {
        let object: JSONValue = ["id": id, "ok": .bool(ok), "lines": .array(lines.map { .string($0) })]
        return object.serializedBytes
    }

    private static func checkedLine(_ line: String, id: JSONValue) -> Result<String, FleetPayloadError> {
        if line.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
            return .failure(FleetPayloadError(id: id, "payload rejected: one command per message (found a line break)"))
        }
        if line.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            return .failure(FleetPayloadError(id: id, "payload rejected: control characters in the command"))
        }
        return .success(line)
    }

    /// Without leading and trailing spaces, tabs and line breaks.
    private static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = scalars.firstIndex(where: { !isSpace($0) }),
              let end = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(scalars[start...end])
    }
}
