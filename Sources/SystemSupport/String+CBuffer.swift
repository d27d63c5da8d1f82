extension String {
    /// Decodes a NUL-terminated C character buffer (invalid UTF-8 is repaired).
    public init(nullTerminated buffer: [CChar]) {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
