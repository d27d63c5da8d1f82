import Commands
import GatewayModel

/// One button of the web page: its form value, its label, and the console
/// command line it stands for. The command line is parsed into the same
/// `GatewayCommand` the console and MQTT use, so a button does exactly what
/// typing the line does. Only these values are accepted from a browser.
public struct WebControl: Sendable, Equatable {
    /// The form value (`pause`, `preset-3`, `key-KEY_UP`).
    public let value: String
    public let label: String
    public let commandLine: String

    public init(value: String, label: String, commandLine: String) {
        self.value = value
        self.label = label
        self.commandLine = commandLine
    }

    /// The command, parsed as the console parses it.
    public var command: GatewayCommand? { try? GatewayCommand(parsing: commandLine) }

    public static let player: [WebControl] = [
        WebControl(value: "play", label: "Play", commandLine: "play"),
        WebControl(value: "pause", label: "Pause", commandLine: "pause"),
        WebControl(value: "stop", label: "Stop", commandLine: "stop"),
        WebControl(value: "previous", label: "Previous", commandLine: "prev"),
        WebControl(value: "next", label: "Next", commandLine: "next"),
    ]

    public static let volume: [WebControl] = [
        WebControl(value: "volume-down", label: "Volume down", commandLine: "vol -5"),
        WebControl(value: "volume-up", label: "Volume up", commandLine: "vol +5"),
        WebControl(value: "mute", label: "Mute", commandLine: "mute"),
    ]

    /// The kiosk's loop, shown while `[kiosk]` is on: the console's `playlist` commands and `checkout`.
    public static let kiosk: [WebControl] = [
        WebControl(value: "kiosk-start", label: "Start playlist", commandLine: "playlist start"),
        WebControl(value: "kiosk-stop", label: "Stop playlist", commandLine: "playlist stop"),
        WebControl(value: "kiosk-next", label: "Next in playlist", commandLine: "playlist next"),
        WebControl(value: "kiosk-checkout", label: "Checkout", commandLine: "checkout"),
    ]

    /// Asks for the discovery table (starts mDNS browsing when `[device]` is a fixed host), as `devices` does.
    public static let searchDevices = WebControl(value: "search-devices", label: "Search for devices", commandLine: "devices")

    /// The prefix of a discovered device's "Use this device" button: `use-ID`.
    public static let usePrefix = "use-"

    /// The button of a device in the discovery table: the console's `use ID`.
    public static func use(_ device: CastDevice) -> WebControl {
        WebControl(value: usePrefix + device.id, label: "Use this device", commandLine: "use \(device.id)")
    }

    /// The remote's key pad, three a row with the arrows as a cross around
    /// OK: the keys enter the input stream as `key NAME` does.
    public static let keys: [WebControl] = [
        ("KEY_BACK", "Back"), ("KEY_UP", "Up"), ("KEY_HOME", "Home"),
        ("KEY_LEFT", "Left"), ("KEY_OK", "OK"), ("KEY_RIGHT", "Right"),
        ("KEY_MENU", "Menu"), ("KEY_DOWN", "Down"), ("KEY_PLAYPAUSE", "Play/Pause"),
    ].map { WebControl(value: "key-\($0.0)", label: $0.1, commandLine: "key \($0.0)") }

    /// One button per configured preset: `Preset 3: News`.
    public static func presets(_ presets: [WebPreset]) -> [WebControl] {
        presets.map { WebControl(value: "preset-\($0.number)", label: "Preset \($0.number): \($0.title)", commandLine: "preset \($0.number)") }
    }
}

/// A configured preset as the page shows it.
public struct WebPreset: Sendable, Equatable {
    public let number: Int
    public let title: String

    public init(number: Int, title: String) {
        self.number = number
        self.title = title
    }
}
