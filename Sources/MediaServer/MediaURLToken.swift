import SystemSupport

/// The unguessable first component of every media URL, so that only a host
/// that was told a URL (the receiver, by the gateway's LOAD) can fetch;
/// anything else on the LAN gets 404.
///
/// Per boot: the kernel's boot id (a random UUID drawn at each boot), so
/// URLs survive a restart of the daemon or a reload (a receiver keeps
/// fetching the file it plays, and the kiosk recognises its own item) and
/// change with every boot. Where the boot id cannot be read, a random token
/// for this process.
public enum MediaURLToken {
    public static let current: String = bootID() ?? random()

    /// 32 lowercase hex digits, or nil.
    static func bootID() -> String? {
        guard let fd = try? FileDescriptor.open("/proc/sys/kernel/random/boot_id", .readOnly) else { return nil }
        defer { fd.close() }
        var buffer = [UInt8](repeating: 0, count: 64)
        guard let count = try? fd.read(into: &buffer), count > 0 else { return nil }
        let digits = buffer[..<count].filter { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        guard digits.count == 32 else { return nil }
        return String(decoding: digits, as: UTF8.self)
    }

    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: (0..<32).map { _ in hex[Int(generator.next() % 16)] }, as: UTF8.self)
    }

    /// Whether `target` starts with `/<token>/`, compared in constant time
    /// (no timing hint of how much of a guess was right); the rest from the
    /// `/` on, or nil.
    static func strip(_ token: String, from target: [UInt8]) -> [UInt8]? {
        let prefix = [UInt8(ascii: "/")] + Array(token.utf8) + [UInt8(ascii: "/")]
        guard target.count >= prefix.count else { return nil }
        var difference: UInt8 = 0
        for index in prefix.indices { difference |= prefix[index] ^ target[index] }
        guard difference == 0 else { return nil }
        return Array(target[(prefix.count - 1)...])
    }
}
