/// What the kiosk's machine is configured with: its `[kiosk]` section (a
/// changed one starts a new player) and the gateway's `[cast] app-id`, in
/// which its LOADs run (given at start and again on every config reload,
/// never asked of the gateway per snapshot).
public struct KioskConfiguration: Sendable, Equatable {
    public var settings: KioskSettings
    public var castAppID: String

    public init(settings: KioskSettings, castAppID: String) {
        self.settings = settings
        self.castAppID = castAppID
    }
}
