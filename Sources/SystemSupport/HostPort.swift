/// A host and a port as people write them in settings and URLs: `HOST`,
/// `HOST:PORT`, `[IPV6]`, `[IPV6]:PORT`, or a bare IPv6 address (more than
/// one colon: no port can follow it). The one parser for all of them; what a
/// valid host is (a name, a numeric address) is the caller's rule.
public struct HostPort: Sendable, Equatable, CustomStringConvertible {
    /// Without brackets, e.g. `fe80::1%eth0`.
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `192.168.1.20:8009`, `[fe80::1]:8009`.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses `text`; `defaultPort` when it names none. With
    /// `allowsBareIPv6` false, the text after the first colon is the port
    /// (so `fe80::1` is rejected: `:1` is not a port).
    public static func parse(_ text: some StringProtocol, defaultPort: UInt16,
                             allowsBareIPv6: Bool = true) throws(HostPortError) -> HostPort {
        let text = Substring(text)
        let host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw HostPortError(.unclosedBracket, text) }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw HostPortError(.textAfterBracket, text) }
                portText = rest.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            if allowsBareIPv6, text.lastIndex(of: ":") != colon {
                host = text  // a bare IPv6 address
            } else {
                host = text[..<colon]
                portText = text[text.index(after: colon)...]
            }
        } else {
            host = text
        }
        guard !host.isEmpty else { throw HostPortError(.noHost, text) }
        var port = defaultPort
        if let portText {
            guard let value = UInt16(portText), value > 0 else { throw HostPortError(.badPort, portText) }
            port = value
        }
        return HostPort(host: String(host), port: port)
    }
}

/// Why a host:port did not parse; `text` is the part at fault (the port
/// text for `badPort`, the whole text otherwise).
public struct HostPortError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case noHost = "no-host"
        case unclosedBracket = "unclosed-bracket"
        case textAfterBracket = "text-after-bracket"
        case badPort = "bad-port"
    }

    public let code: Code
    public let text: String

    public init(_ code: Code, _ text: some StringProtocol) {
        self.code = code
        self.text = String(text)
    }

    public var description: String {
        switch code {
        case .noHost: "'\(text)' has no host"
        case .unclosedBracket: "'\(text)' has an unclosed '[' around an IPv6 address"
        case .textAfterBracket: "'\(text)' has something other than :PORT after the ']'"
        case .badPort: "'\(text)' is not a port (1-65535)"
        }
    }
}
