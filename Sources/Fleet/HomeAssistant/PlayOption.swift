import GatewayModel

/// One option of Home Assistant's `Play` select: a preset, or an item of the
/// kiosk's playlist, under a name unique among the options.
struct PlayOption: Sendable, Equatable {
    enum Choice: Sendable, Equatable {
        case preset(HomeAssistantContext.Preset)
        /// Item N (from 1) of the kiosk's playlist.
        case playlistItem(Int)
    }

    var name: String
    var choice: Choice

    /// The console command selecting it sends.
    var command: String {
        switch choice {
        case .preset(let preset): "preset \(preset.number)"
        case .playlistItem(let number): "playlist play \(number)"
        }
    }

    /// The kiosk items offered at most (a `media = DIR` loop may have
    /// thousands): the first ones, so the config stays small.
    static let maximumPlaylistItems = 100
    /// A kiosk item's name is cut to this many characters in its option
    /// (Home Assistant keeps a state of at most 255).
    static let maximumItemName = 100

    /// The presets shown, then the kiosk's items (`Playlist 2: Breakfast`,
    /// the first `maximumPlaylistItems`), in that order.
    static func options(presets: [HomeAssistantContext.Preset], kioskItems: [String]) -> [PlayOption] {
        var choices = presets.map { (name: $0.name.isEmpty ? "Preset \($0.number)" : $0.name, choice: Choice.preset($0)) }
        for (index, name) in kioskItems.prefix(maximumPlaylistItems).enumerated() {
            let cut = name.count > maximumItemName ? String(name.prefix(maximumItemName - 1)) + "…" : name
            choices.append(("Playlist \(index + 1): \(cut)", .playlistItem(index + 1)))
        }
        // Every name is non-empty, so the unique names line up with the choices.
        return zip(HomeAssistantDiscovery.optionNames(choices.map(\.name)), choices).map { PlayOption(name: $0, choice: $1.choice) }
    }

    /// The option playing in `state`: the kiosk's item, else the preset whose
    /// URL is the content, else the one whose name is the title; nil while nothing plays.
    static func selected(in options: [PlayOption], state: GatewayState) -> PlayOption? {
        guard state.player != .none, state.player != .idle else { return nil }
        if let playing = state.kioskItems?.playing, let option = options.first(where: { $0.choice == .playlistItem(playing + 1) }) {
            return option
        }
        func preset(_ matches: (HomeAssistantContext.Preset) -> Bool) -> PlayOption? {
            options.first { if case .preset(let preset) = $0.choice { matches(preset) } else { false } }
        }
        if let contentID = state.contentID, let option = preset({ $0.url == contentID }) { return option }
        if let title = state.title, let option = preset({ $0.name == title }) { return option }
        return nil
    }
}
