/// What a `Range` header asks of a file of `size` bytes (RFC 9110 §14).
/// Pure: parsed from the header text alone.
public enum ByteRangeRequest: Equatable, Sendable {
    /// No usable Range header (absent, another unit, or several ranges,
    /// which a server may ignore): send the whole file with 200.
    case whole
    /// One satisfiable range: 206 with `Content-Range: bytes first-last/size`.
    case partial(offset: UInt64, length: UInt64)
    /// A syntactically valid range that the file cannot meet: 416 with
    /// `Content-Range: bytes */size`.
    case unsatisfiable

    /// `bytes=A-B`, `bytes=A-` or `bytes=-N`; whitespace around the parts is
    /// allowed. Malformed headers are ignored (RFC 9110 says to), not refused.
    public static func parse(_ header: String?, size: UInt64) -> ByteRangeRequest {
        guard let header else { return .whole }
        let text = header.trimmingSpaces
        guard text.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = String(text.dropFirst(6)).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let firstText = String(spec[..<dash]).trimmingSpaces
        let lastText = String(spec[spec.index(after: dash)...]).trimmingSpaces
        if firstText.isEmpty {
            // Suffix: the last N bytes.
            guard let suffix = decimal(lastText) else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            let length = min(suffix, size)
            return .partial(offset: size - length, length: length)
        }
        guard let first = decimal(firstText) else { return .whole }
        var last: UInt64?
        if !lastText.isEmpty {
            guard let value = decimal(lastText) else { return .whole }
            guard value >= first else { return .whole }  // invalid: ignore the header
            last = value
        }
        guard first < size else { return .unsatisfiable }
        let end = min(last ?? (size - 1), size - 1)
        return .partial(offset: first, length: end - first + 1)
    }

    /// Digits only, without overflow; nil otherwise.
    private static func decimal(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
