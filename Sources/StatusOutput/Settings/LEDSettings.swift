import Configuration
import GatewayModel
import SystemSupport

/// `[leds]`: which GPIO line drives each status LED.
public struct LEDSettings: SettingsSection {
    public static let sectionName = "leds"
    public var lines: [LEDRole: LEDLineSpec] = [:]

    public init(lines: [LEDRole: LEDLineSpec] = [:]) {
        self.lines = lines
    }

    public init(from section: inout ConfigSection) throws(ConfigError) {
        for role in LEDRole.allCases {
            lines[role] = try section.value(role.rawValue, expected: "a line name (GPIO17) or CHIPLABEL:OFFSET, optionally followed by 'active-low'; chip numbers (gpiochip0:17) move between boards and are not accepted", LEDLineSpec.init(parsing:))
        }
    }
}
