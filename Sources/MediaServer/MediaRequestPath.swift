/// A request target the media server is willing to look up:
/// `/<root index>/<component>/.../<component>`, each component percent-decoded.
///
/// Pure (no I/O) so it can be fuzzed (Fuzz/FuzzMediaPath.swift). Everything
/// that could leave a root or confuse the file system is refused here, before
/// any file is touched; the symlink check (realpath against the root) comes
/// after, in `MediaRoots`.
public struct MediaRequestPath: Sendable, Equatable {
    /// Index into the configured roots.
    public var rootIndex: Int
    /// Decoded path components below the root, never empty, none of them
    /// empty, `.`, `..`, hidden, or containing `/`, `\`, NUL or control bytes.
    public var components: [String]

    /// Longest request target accepted, in bytes (before decoding).
    public static let maximumTargetLength = 4096
    /// Longest decoded component, in bytes (NAME_MAX).
    public static let maximumComponentLength = 255
    /// Most components below a root.
    public static let maximumDepth = 64

    public init(rootIndex: Int, components: [String]) {
        self.rootIndex = rootIndex
        self.components = components
    }

    /// Why a request target was refused; `status` is the HTTP answer.
    public enum Rejection: Error, Equatable, Sendable {
        /// Does not start with `/`, or is `/` alone, or has no file part.
        case notAFilePath
        case tooLong
        /// A `%` not followed by two hex digits.
        case badPercentEncoding
        /// A NUL byte, raw or as `%00`.
        case nul
        /// `%2F` / `%5C` (an encoded separator) or a raw `\`.
        case encodedSeparator
        /// Other control bytes (0x01-0x1F, 0x7F), raw or encoded.
        case controlCharacter
        /// Not UTF-8 after decoding.
        case invalidUTF8
        /// An empty component (`//`, or a trailing `/` naming a directory).
        case emptyComponent
        /// `.` or `..`, raw or encoded.
        case traversal
        /// A component starting with `.` (hidden files are not served).
        case hidden
        /// The first component is not the index of a configured root.
        case unknownRoot

        /// 400 for malformed targets, 403 for refused ones, 404 for an
        /// unknown root, 414 for over-long ones.
        public var status: Int {
            switch self {
            case .tooLong: 414
            case .traversal, .hidden: 403
            case .unknownRoot, .notAFilePath: 404
            case .badPercentEncoding, .nul, .encodedSeparator, .controlCharacter, .invalidUTF8, .emptyComponent: 400
            }
        }
    }

    /// Parses the raw (still percent-encoded) request target. A query or
    /// fragment is ignored. `rootCount` is the number of configured roots.
    public static func parse(_ target: [UInt8], rootCount: Int) -> Result<MediaRequestPath, Rejection> {
        guard target.count <= maximumTargetLength else { return .failure(.tooLong) }
        var path = target[...]
        if let end = path.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            path = path[..<end]
        }
        guard path.first == UInt8(ascii: "/") else { return .failure(.notAFilePath) }
        let rawComponents = path.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard rawComponents.count >= 2 else { return .failure(.notAFilePath) }
        guard rawComponents.count <= maximumDepth + 1 else { return .failure(.tooLong) }
        var decoded: [String] = []
        decoded.reserveCapacity(rawComponents.count)
        for raw in rawComponents {
            switch decodeComponent(raw) {
            case .success(let component): decoded.append(component)
            case .failure(let rejection): return .failure(rejection)
            }
        }
        guard let index = rootIndex(decoded[0], rootCount: rootCount) else { return .failure(.unknownRoot) }
        return .success(MediaRequestPath(rootIndex: index, components: Array(decoded.dropFirst())))
    }

    public static func parse(_ target: String, rootCount: Int) -> Result<MediaRequestPath, Rejection> {
        parse(Array(target.utf8), rootCount: rootCount)
    }

    /// The request target for this path: the root index, then each component
    /// percent-encoded (everything but RFC 3986 unreserved characters).
    public var target: String {
        "/\(rootIndex)/" + components.map(MediaRequestPath.percentEncode).joined(separator: "/")
    }

    /// Percent-encodes all bytes except `A-Z a-z 0-9 - . _ ~`.
    public static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `name` can be served at all (the same rules as a decoded
    /// request component), so that URLs are only built for servable files.
    public static func isServableComponent(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return validate(decoded: bytes) == nil
    }

    // MARK: Decoding

    private static func decodeComponent(_ raw: ArraySlice<UInt8>) -> Result<String, Rejection> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < raw.endIndex, let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2]) else {
                    return .failure(.badPercentEncoding)
                }
                let value = high << 4 | low
                if value == UInt8(ascii: "/") || value == UInt8(ascii: "\\") { return .failure(.encodedSeparator) }
                bytes.append(value)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        if let rejection = validate(decoded: bytes) { return .failure(rejection) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.invalidUTF8) }
        return .success(text)
    }

    /// Checks a decoded component; nil when it is acceptable.
    private static func validate(decoded bytes: [UInt8]) -> Rejection? {
        guard !bytes.isEmpty else { return .emptyComponent }
        guard bytes.count <= maximumComponentLength else { return .tooLong }
        for byte in bytes {
            if byte == 0 { return .nul }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") { return .encodedSeparator }
            if byte < 0x20 || byte == 0x7F { return .controlCharacter }
        }
        if bytes == [UInt8(ascii: ".")] || bytes == [UInt8(ascii: "."), UInt8(ascii: ".")] { return .traversal }
        if bytes.first == UInt8(ascii: ".") { return .hidden }
        if String(validating: bytes, as: UTF8.self) == nil { return .invalidUTF8 }
        return nil
    }

    private static func rootIndex(_ text: String, rootCount: Int) -> Int? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        guard digits.count == 1 || digits.first != UInt8(ascii: "0") else { return nil }
        guard let value = Int(text), value < rootCount else { return nil }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
             UInt8(ascii: "~"): true
        default: false
        }
    }
}
