import JSON
/// One Cast v2 message: the `CastMessage` protobuf from Chromium's
/// `cast_channel.proto`, with the payload as a string (JSON) or bytes.
public struct CastMessage: Sendable, Equatable {
    /// The body of a message: JSON text for every namespace but device auth.
    public enum Payload: Sendable, Equatable {
        case string(String)
        case binary([UInt8])
    }

    /// `protocol_version`; CASTV2_1_0 (0) is what senders send.
    public var protocolVersion: UInt64
    public var sourceID: String
    public var destinationID: String
    public var namespace: String
    public var payload: Payload

    public init(
        protocolVersion: UInt64 = 0,
        sourceID: String,
        destinationID: String,
        namespace: String,
        payload: Payload
    ) {
        self.protocolVersion = protocolVersion
        self.sourceID = sourceID
        self.destinationID = destinationID
        self.namespace = namespace
        self.payload = payload
    }

    /// A message whose payload is the compact text of `json`.
    public init(sourceID: String, destinationID: String, namespace: String, json: JSONValue) {
        self.init(sourceID: sourceID, destinationID: destinationID, namespace: namespace, payload: .string(json.serialized))
    }

    /// The payload parsed as JSON; binary payloads and invalid JSON throw.
    public func jsonPayload() throws(CastProtocolError) -> JSONValue {
        guard case .string(let text) = payload else {
            throw CastProtocolError(.invalidJSON, "binary payload on \(namespace) where JSON was expected")
        }
        do {
            return try JSONValue(parsing: text)
        } catch {
            throw CastProtocolError(.invalidJSON, "\(error) on \(namespace)")
        }
    }

    /// Addresses a reply to the sender of this message (source and destination swapped).
    public func reply(json: JSONValue) -> CastMessage {
        CastMessage(sourceID: destinationID, destinationID: sourceID, namespace: namespace, json: json)
    }
}

extension CastMessage {
    /// Largest body a frame may carry (protocol limit).
    public static let maximumBodySize = 65536

    /// Field numbers of `CastMessage`.
    enum Field: UInt64 {
        case protocolVersion = 1
        case sourceID = 2
        case destinationID = 3
        case namespace = 4
        case payloadType = 5
        case payloadUTF8 = 6
        case payloadBinary = 7
    }

    /// Serializes the message. Fields 1 and 5 are always written, even when
    /// zero, because they are proto2 `required` and some peers insist.
    public func serialized() -> [UInt8] {
        var writer = ProtobufWriter(reservingCapacity: 64 + namespace.utf8.count)
        writer.writeVarintField(Field.protocolVersion.rawValue, protocolVersion)
        writer.writeStringField(Field.sourceID.rawValue, sourceID)
        writer.writeStringField(Field.destinationID.rawValue, destinationID)
        writer.writeStringField(Field.namespace.rawValue, namespace)
        switch payload {
        case .string(let text):
            writer.writeVarintField(Field.payloadType.rawValue, 0)
            writer.writeStringField(Field.payloadUTF8.rawValue, text)
        case .binary(let data):
            writer.writeVarintField(Field.payloadType.rawValue, 1)
            writer.writeBytesField(Field.payloadBinary.rawValue, data)
        }
        return writer.bytes
    }

    /// The message as a frame: 4-byte big-endian length, then the body.
    /// Throws when the body exceeds `maximumBodySize`.
    public func framed() throws(CastProtocolError) -> [UInt8] {
        let body = serialized()
        guard body.count <= CastMessage.maximumBodySize else {
            throw CastProtocolError(.frameTooLarge, "message of \(body.count) bytes exceeds \(CastMessage.maximumBodySize)")
        }
        let length = UInt32(body.count)
        var frame: [UInt8] = [
            UInt8(length >> 24), UInt8(truncatingIfNeeded: length >> 16),
            UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
        ]
        frame.reserveCapacity(4 + body.count)
        frame.append(contentsOf: body)
        return frame
    }

    /// Parses a serialized `CastMessage`. Unknown fields (including the
    /// deprecated 8 and 9) are skipped by wire type; fields 1 to 5 are
    /// required; the payload field matching `payload_type` must be valid.
    public init(serialized bytes: [UInt8]) throws(CastProtocolError) {
        var reader = ProtobufReader(bytes)
        var version: UInt64?
        var source: String?
        var destination: String?
        var namespace: String?
        var payloadType: UInt64?
        var text: ArraySlice<UInt8>?
        var binary: ArraySlice<UInt8>?

        func string(_ slice: ArraySlice<UInt8>, _ name: String) throws(CastProtocolError) -> String {
            guard let value = String(validating: slice, as: UTF8.self) else {
                throw CastProtocolError(.invalidUTF8, "\(name) is not valid UTF-8")
            }
            return value
        }

        while !reader.isAtEnd {
            let (number, wireType) = try reader.readKey()
            guard let field = Field(rawValue: number) else {
                try reader.skip(wireType, field: number)
                continue
            }
            let expected: ProtobufWireType = switch field {
            case .protocolVersion, .payloadType: .varint
            default: .lengthDelimited
            }
            guard wireType == expected else {
                throw CastProtocolError(.invalidFieldValue, "field \(number) has wire type \(wireType.rawValue)")
            }
            switch field {
            case .protocolVersion: version = try reader.readVarint()
            case .sourceID: source = try string(try reader.readLengthDelimited(), "source_id")
            case .destinationID: destination = try string(try reader.readLengthDelimited(), "destination_id")
            case .namespace: namespace = try string(try reader.readLengthDelimited(), "namespace")
            case .payloadType: payloadType = try reader.readVarint()
            case .payloadUTF8: text = try reader.readLengthDelimited()
            case .payloadBinary: binary = try reader.readLengthDelimited()
            }
        }

        guard let version else { throw CastProtocolError(.missingRequiredField, "protocol_version (1) is missing") }
        guard let source else { throw CastProtocolError(.missingRequiredField, "source_id (2) is missing") }
        guard let destination else { throw CastProtocolError(.missingRequiredField, "destination_id (3) is missing") }
        guard let namespace else { throw CastProtocolError(.missingRequiredField, "namespace (4) is missing") }
        guard let payloadType else { throw CastProtocolError(.missingRequiredField, "payload_type (5) is missing") }

        let payload: Payload
        switch payloadType {
        case 0: payload = .string(try string(text ?? [], "payload_utf8"))
        case 1: payload = .binary(Array(binary ?? []))
        default: throw CastProtocolError(.invalidFieldValue, "payload_type \(payloadType) is neither STRING nor BINARY")
        }
        self.init(protocolVersion: version, sourceID: source, destinationID: destination, namespace: namespace, payload: payload)
    }
}

extension CastMessage: CustomStringConvertible {
    /// A one-line summary for logs; JSON payloads have credentials redacted.
    public var description: String {
        let body: String
        switch payload {
        case .string(let text):
            if let json = try? JSONValue(parsing: text) {
                body = json.redacted.serialized
            } else {
                body = "<\(text.utf8.count) bytes of non-JSON text>"
            }
        case .binary(let data):
            body = "<\(data.count) binary bytes>"
        }
        return "\(sourceID) -> \(destinationID) [\(namespace)] \(body)"
    }
}
