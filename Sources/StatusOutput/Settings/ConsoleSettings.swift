import Configuration
import SystemSupport

/// `[console]`: the serial console's tty and speed.
public struct ConsoleSettings: SettingsSection {
    public static let sectionName = "console"

    /// What the console may do: everything, or only show (a port in a public place).
    public enum Mode: String, Sendable, Equatable {
        case full
        case statusOnly = "status-only"
    }

    public static let baudRates = [9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600]
    /// The tty; nil (`none` in the file) turns the console off.
    public var device: String? = "/dev/serial0"
    public var baud = 115_200
    public var mode = Mode.full

    public init(device: String? = "/dev/serial0", baud: Int = 115_200, mode: Mode = .full) {
        self.device = device
        self.baud = baud
        self.mode = mode
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        if let device = try section.string("device") { self.device = device == "none" ? nil : device }
        baud = try section.value("baud", expected: "one of \(ConsoleSettings.baudRates.map(String.init).joined(separator: ", "))") { text in
            Int(text).flatMap { ConsoleSettings.baudRates.contains($0) ? $0 : nil }
        } ?? 115_200
        mode = try section.value("mode", expected: "full or status-only", Mode.init(rawValue:)) ?? .full
    }
}
