import COpenSSL

/// A salted, slow hash of the web interface's password: PBKDF2-HMAC-SHA256
/// from OpenSSL, stored as one line
/// `pbkdf2-sha256$ITERATIONS$SALT-HEX$HASH-HEX`. The password itself is
/// never stored, logged or kept after checking.
public struct PasswordHash: Sendable, Equatable {
    public static let scheme = "pbkdf2-sha256"
    /// About 0.2 s on a Raspberry Pi 3: slow for a guesser, quick enough for a login.
    public static let defaultIterations = 200_000
    static let saltLength = 16
    static let hashLength = 32

    public let iterations: Int
    public let salt: [UInt8]
    public let hash: [UInt8]

    /// Hashes `password` with a fresh random salt.
    public init(hashing password: String, iterations: Int = PasswordHash.defaultIterations) throws(WebError) {
        guard let salt = SecureRandom.bytes(PasswordHash.saltLength) else {
            throw WebError(.hashing, "OpenSSL could not produce random bytes for the salt (\(SecureRandom.lastError))")
        }
        guard let hash = PasswordHash.derive(password, salt: salt, iterations: iterations) else {
            throw WebError(.hashing, "OpenSSL's PBKDF2 failed (\(SecureRandom.lastError))")
        }
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    /// Reads the line `web-password` wrote; `origin` names the file in errors.
    public init(parsing text: String, origin: String) throws(WebError) {
        let line = Substring(text).trimmingWhitespace()
        let parts = line.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == Substring(PasswordHash.scheme), let iterations = Int(parts[1]),
              (1...100_000_000).contains(iterations), let salt = Hex.decode(parts[2]), salt.count >= 8,
              let hash = Hex.decode(parts[3]), hash.count == PasswordHash.hashLength else {
            throw WebError(.passwordFile,
                           "\(origin) is not a password hash written by cast-gateway web-password; write it anew with: cast-gateway web-password \(origin)")
        }
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    /// The file's line (without newline).
    public var encoded: String {
        "\(PasswordHash.scheme)$\(iterations)$\(Hex.encode(salt))$\(Hex.encode(hash))"
    }

    /// Whether `password` is the one hashed, compared in constant time. Slow by design: not on the cooperative pool.
    public func matches(_ password: String) -> Bool {
        guard let candidate = PasswordHash.derive(password, salt: salt, iterations: iterations) else { return false }
        return ConstantTime.equal(candidate, hash)
    }

    static func derive(_ password: String, salt: [UInt8], iterations: Int) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: hashLength)
        let bytes = Array(password.utf8)
        let ok = bytes.withUnsafeBufferPointer { passwordBytes in
            passwordBytes.withMemoryRebound(to: CChar.self) { passwordChars in
                PKCS5_PBKDF2_HMAC(passwordChars.baseAddress, Int32(passwordChars.count), salt, Int32(salt.count),
                                  Int32(iterations), EVP_sha256(), Int32(hashLength), &output)
            }
        }
        return ok == 1 ? output : nil
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and line ends.
    func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return text
    }
}

/// Lower-case hexadecimal.
enum Hex {
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
