/// Protocol Buffers wire types (the low three bits of a field key).
enum ProtobufWireType: UInt64 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

/// Reads protobuf fields from a byte buffer, bounds-checked at every step.
struct ProtobufReader {
    let bytes: [UInt8]
    private(set) var index: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.index = 0
    }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func readVarint() throws(CastProtocolError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < bytes.count else { throw CastProtocolError(.truncatedMessage, "varint runs past the end") }
            let byte = bytes[index]
            index += 1
            if shift == 63, byte > 1 { throw CastProtocolError(.malformedVarint, "varint longer than 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw CastProtocolError(.malformedVarint, "varint longer than 10 bytes") }
        }
    }

    /// Reads a field key: (field number, wire type).
    mutating func readKey() throws(CastProtocolError) -> (field: UInt64, wireType: ProtobufWireType) {
        let key = try readVarint()
        let field = key >> 3
        guard field > 0 else { throw CastProtocolError(.invalidFieldValue, "field number 0") }
        guard let wireType = ProtobufWireType(rawValue: key & 7) else {
            throw CastProtocolError(.unsupportedWireType, "wire type \(key & 7) in field \(field)")
        }
        return (field, wireType)
    }

    mutating func readLengthDelimited() throws(CastProtocolError) -> ArraySlice<UInt8> {
        let length = try readVarint()
        guard length <= UInt64(bytes.count - index) else {
            throw CastProtocolError(.truncatedMessage, "length \(length) runs past the end")
        }
        let start = index
        index += Int(length)
        return bytes[start..<index]
    }

    /// Skips a field of an unknown number, by its wire type.
    mutating func skip(_ wireType: ProtobufWireType, field: UInt64) throws(CastProtocolError) {
        switch wireType {
        case .varint: _ = try readVarint()
        case .fixed64: try advance(8)
        case .fixed32: try advance(4)
        case .lengthDelimited: _ = try readLengthDelimited()
        case .startGroup, .endGroup:
            throw CastProtocolError(.unsupportedWireType, "deprecated group in field \(field)")
        }
    }

    private mutating func advance(_ count: Int) throws(CastProtocolError) {
        guard bytes.count - index >= count else { throw CastProtocolError(.truncatedMessage, "fixed field runs past the end") }
        index += count
    }
}

/// Appends protobuf fields to a byte buffer.
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func writeVarint(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        bytes.append(UInt8(remaining))
    }

    mutating func writeKey(_ field: UInt64, _ wireType: ProtobufWireType) {
        writeVarint(field << 3 | wireType.rawValue)
    }

    mutating func writeVarintField(_ field: UInt64, _ value: UInt64) {
        writeKey(field, .varint)
        writeVarint(value)
    }

    mutating func writeBytesField<Bytes: Collection<UInt8>>(_ field: UInt64, _ value: Bytes) {
        writeKey(field, .lengthDelimited)
        writeVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func writeStringField(_ field: UInt64, _ value: String) {
        writeBytesField(field, value.utf8)
    }
}
