import Configuration
import SystemSupport

/// The core's own settings: the device, what to launch, and the presets.
/// Inputs, outputs and the daemon's services keep theirs in their modules.
public struct GatewaySettings: Sendable, Equatable {
    public var device = DeviceSettings()
    public var cast = CastSettings()
    public var presets = PresetSettings()

    public init(device: DeviceSettings = DeviceSettings(), cast: CastSettings = CastSettings(), presets: PresetSettings = PresetSettings()) {
        self.device = device
        self.cast = cast
        self.presets = presets
    }

    public init(file: ConfigFile) throws(ConfigError) {
        device = try file.settings(DeviceSettings.self)
        cast = try file.settings(CastSettings.self)
        presets = try file.settings(PresetSettings.self)
    }
}
