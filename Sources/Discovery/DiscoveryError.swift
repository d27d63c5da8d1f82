/// Why mDNS cannot be used at all (not a passing state of avahi-daemon,
/// which the browser waits out): what happened and what to do.
public struct DiscoveryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// avahi-client is not installed (it is loaded when mDNS is first needed).
        case library = "mdns-library"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
