/// A request the gateway cannot carry out, with a message for the user.
public struct GatewayError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// No device is configured or selected.
        case noDevice = "no-device"
        /// The feature needs hardware or a subsystem that is not set up.
        case unavailable
        /// A preset number with no URL configured.
        case unknownPreset = "unknown-preset"
        /// Waiting for the device took too long.
        case timeout
        case badArgument = "bad-argument"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
