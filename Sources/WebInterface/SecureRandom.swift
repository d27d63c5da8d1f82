import COpenSSL

/// Unpredictable bytes from OpenSSL's RAND_bytes: salts, session and CSRF tokens.
public enum SecureRandom {
    /// `count` random bytes, or nil when OpenSSL's generator is not seeded.
    public static func bytes(_ count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        return RAND_bytes(&bytes, Int32(count)) == 1 ? bytes : nil
    }

    /// A token of 32 random bytes in hex (256 bits), or nil.
    public static func token() -> String? {
        bytes(32).map(Hex.encode)
    }

    /// OpenSSL's last error, for a message.
    static var lastError: String {
        let code = ERR_get_error()
        guard code != 0 else { return "no OpenSSL error recorded" }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
