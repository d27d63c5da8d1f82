/// One step of a kiosk command that failed while the command went on.
public struct KioskProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Checkout could not stop the app on the TV (a guest's may still show).
        case appNotStopped = "app-not-stopped"
        /// Checkout could not set the kiosk's volume.
        case volumeNotSet = "volume-not-set"
    }

    public let code: Code
    /// Says which step failed, why, and on what.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
