#if canImport(Glibc)
import Glibc
#endif
import CastProtocol
import JSON
import SystemSupport

/// Appends one JSON object per received message to a file, flushed at once
/// so tests and installers can follow it live. `data` is the payload text
/// exactly as it arrived on the wire (binary payloads are summarised).
final class MessageLog {
    private let file: UnsafeMutablePointer<FILE>

    init(path: String) throws {
        guard let file = fopen(path, "a") else { throw SystemError.current("open simulator log \(path)") }
        self.file = file
    }

    deinit { fclose(file) }

    func record(_ message: CastMessage, connection: Int, time: Double) {
        let data: JSONValue = switch message.payload {
        case .string(let text): .string(text)
        case .binary(let bytes): .string("<\(bytes.count) binary bytes>")
        }
        let entry: JSONValue = [
            "time": .number((time * 1000).rounded() / 1000),
            "connection": .int(connection),
            "source": .string(message.sourceID),
            "destination": .string(message.destinationID),
            "namespace": .string(message.namespace),
            "data": data,
        ]
        fputs(entry.serialized + "\n", file)
        fflush(file)
    }
}
