/// The movie duration of an ISO BMFF (MP4, M4A, MOV) file from its `mvhd`
/// box, found by walking top-level boxes in bytes fetched from the file.
/// Pure and bounds-checked: the bytes come from the network.
public enum MP4Duration {
    public enum Scan: Equatable, Sendable {
        /// Seconds (timescale and duration from mvhd, version 0 or 1).
        case duration(Double)
        /// The bytes end before the `moov` box (or its mvhd) is reached:
        /// fetch again from this file offset.
        case continueAt(UInt64)
        /// Not an MP4, or no usable duration.
        case none
    }

    /// Scans `bytes`, which start at file offset `offset` on a top-level box
    /// boundary. `fileSize`, when known, bounds boxes that claim "to the end".
    public static func scan(_ bytes: [UInt8], at offset: UInt64 = 0, fileSize: UInt64? = nil) -> Scan {
        var position = 0
        var boxes = 0
        func resume(at position: Int) -> Scan {
            let (fileOffset, overflow) = offset.addingReportingOverflow(UInt64(position))
            if overflow { return .none }
            if let fileSize, fileOffset >= fileSize { return .none }
            return .continueAt(fileOffset)
        }
        while position + 8 <= bytes.count {
            boxes += 1
            guard boxes <= 1000, let header = boxHeader(bytes, at: position) else { return .none }
            if offset == 0, position == 0, header.type != "ftyp", !knownTopLevel.contains(header.type) { return .none }
            let available = bytes.count - position
            if header.type == "moov" {
                let truncated = header.size.map { $0 > UInt64(available) } ?? false
                let end = truncated ? bytes.count : position + Int(header.size ?? UInt64(available))
                if let seconds = mvhdDuration(bytes, from: position + header.headerLength, to: end) {
                    return seconds.isFinite && seconds > 0 ? .duration(seconds) : .none
                }
                // mvhd comes first in moov: when it is cut off, fetch from moov's start.
                return truncated && position > 0 ? resume(at: position) : .none
            }
            guard let size = header.size, size >= UInt64(header.headerLength) else { return .none }
            guard size <= UInt64(available) else {
                let (next, overflow) = UInt64(position).addingReportingOverflow(size)
                guard !overflow, next <= UInt64(Int.max) else { return .none }
                return resume(at: Int(next))
            }
            position += Int(size)
        }
        return resume(at: position)
    }

    static let knownTopLevel: Set<String> = ["moov", "mdat", "free", "skip", "wide", "pdin", "uuid", "styp", "sidx", "moof"]

    private struct BoxHeader {
        var type: String
        /// nil: the box extends to the end of the file.
        var size: UInt64?
        var headerLength: Int
    }

    private static func boxHeader(_ bytes: [UInt8], at position: Int) -> BoxHeader? {
        guard position >= 0, position + 8 <= bytes.count else { return nil }
        let size32 = readUInt32(bytes, position)
        let typeBytes = bytes[(position + 4)..<(position + 8)]
        guard typeBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        let type = String(decoding: typeBytes, as: UTF8.self)
        switch size32 {
        case 0: return BoxHeader(type: type, size: nil, headerLength: 8)
        case 1:
            guard position + 16 <= bytes.count else { return nil }
            return BoxHeader(type: type, size: readUInt64(bytes, position + 8), headerLength: 16)
        default:
            return BoxHeader(type: type, size: UInt64(size32), headerLength: 8)
        }
    }

    /// Looks for mvhd among the children in `bytes[start..<end]`.
    private static func mvhdDuration(_ bytes: [UInt8], from start: Int, to end: Int) -> Double? {
        var position = start
        var children = 0
        while position + 8 <= end, children < 100 {
            children += 1
            guard let header = boxHeader(bytes, at: position) else { return nil }
            let payload = position + header.headerLength
            if header.type == "mvhd" {
                guard payload + 4 <= end else { return nil }
                let version = bytes[payload]
                let timescale: UInt64
                let duration: UInt64
                if version == 1 {
                    guard payload + 32 <= end else { return nil }
                    timescale = UInt64(readUInt32(bytes, payload + 20))
                    duration = readUInt64(bytes, payload + 24)
                    guard duration != UInt64.max else { return nil }
                } else if version == 0 {
                    guard payload + 20 <= end else { return nil }
                    timescale = UInt64(readUInt32(bytes, payload + 12))
                    duration = UInt64(readUInt32(bytes, payload + 16))
                    guard duration != UInt64(UInt32.max) else { return nil }
                } else {
                    return nil
                }
                guard timescale > 0 else { return nil }
                return Double(duration) / Double(timescale)
            }
            guard let size = header.size, size >= UInt64(header.headerLength), size <= UInt64(end - position) else { return nil }
            position += Int(size)
        }
        return nil
    }

    private static func readUInt32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func readUInt64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
