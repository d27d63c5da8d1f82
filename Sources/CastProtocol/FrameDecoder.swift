/// Splits a byte stream into Cast frames, however it arrives: a frame split
/// over many reads (one byte at a time works) or many frames in one read.
public struct FrameDecoder: Sendable {
    private var buffer: [UInt8] = []
    private var readIndex = 0
    private var decodedAFrame = false

    public init() {}

    /// Bytes received but not yet returned as a frame.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    public mutating func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        if readIndex > 0, readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete frame body, nil when more bytes are needed. Throws on
    /// a declared length of 0 or above 65536: the stream cannot be resynchronized
    /// after that and the connection must be closed. When the very first
    /// "length" is text (an HTTP server answers `HTTP...`, 1213486160 as a
    /// length), it throws `.notCast` quoting the text instead.
    public mutating func nextFrameBody() throws(CastProtocolError) -> [UInt8]? {
        guard bufferedByteCount >= 4 else { return nil }
        let length = Int(buffer[readIndex]) << 24 | Int(buffer[readIndex + 1]) << 16
            | Int(buffer[readIndex + 2]) << 8 | Int(buffer[readIndex + 3])
        if !decodedAFrame, length > CastMessage.maximumBodySize, let text = textPreview() {
            throw CastProtocolError(.notCast, "it answered with text ('\(text)'), not Cast frames")
        }
        guard length > 0 else { throw CastProtocolError(.emptyFrame, "frame declares an empty body") }
        guard length <= CastMessage.maximumBodySize else {
            throw CastProtocolError(.frameTooLarge, "frame declares \(length) bytes, above \(CastMessage.maximumBodySize)")
        }
        guard bufferedByteCount >= 4 + length else { return nil }
        let start = readIndex + 4
        let body = Array(buffer[start..<start + length])
        readIndex = start + length
        decodedAFrame = true
        if readIndex > 65536, readIndex * 2 > buffer.count {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        return body
    }

    /// The buffered bytes up to the first line end, when they are printable
    /// ASCII (at most 60 shown); nil when they are not text. Only printable
    /// ASCII is returned, so the preview is safe to log.
    private func textPreview() -> String? {
        let line = buffer[readIndex...].prefix { $0 != 0x0D && $0 != 0x0A }
        guard line.count >= 4, line.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        let shown = line.prefix(60)
        return String(decoding: shown, as: UTF8.self) + (line.count > shown.count ? "..." : "")
    }

    /// The next complete message. A frame whose body is not a valid
    /// `CastMessage` throws, but it has been consumed: framing stays in step and
    /// the caller may log the error and carry on with the next frame.
    public mutating func nextMessage() throws(CastProtocolError) -> CastMessage? {
        guard let body = try nextFrameBody() else { return nil }
        return try CastMessage(serialized: body)
    }
}
