/// The kiosk's playlist as the gateway's outputs show it (Home Assistant's
/// `Play` select): the kiosk publishes it in the gateway state, so outputs
/// that do not know the Kiosk module (Fleet) can offer its items and show
/// the one playing. It changes with `playlist reload`, without a config reload.
public struct KioskItems: Sendable, Equatable {
    /// Each item's name, in playlist (file) order: its title, or else its
    /// file name, as `playlist` shows it. Item N of `playlist play N` is `names[N - 1]`.
    public var names: [String]
    /// The index in `names` of the item the loop plays now; nil while it
    /// plays none of them (loading, stopped, outside the schedule, the
    /// welcome app, a guest's turn).
    public var playing: Int?

    public init(names: [String], playing: Int? = nil) {
        self.names = names
        self.playing = playing
    }
}
