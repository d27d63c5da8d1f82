import SystemSupport

/// `[console]`: the serial console's tty and speed.
public struct ConsoleSettings: SettingsSection {
    public static let sectionName = "console"
    public static let baudRates = [9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600]
    /// The tty; nil (`none` in the file) turns the console off.
    public var device: String? = "/dev/serial0"
    public var baud = 115_200

    public init(device: String? = "/dev/serial0", baud: Int = 115_200) {
        self.device = device
        self.baud = baud
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        if let device = try section.string("device") { self.device = device == "none" ? nil : device }
        baud = try section.value("baud", expected: "one of \(ConsoleSettings.baudRates.map(String.init).joined(separator: ", "))") { text in
            Int(text).flatMap { ConsoleSettings.baudRates.contains($0) ? $0 : nil }
        } ?? 115_200
    }
}
