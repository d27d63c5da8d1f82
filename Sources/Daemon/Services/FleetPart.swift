import Fleet
import GatewayModel
import RemoteInput
import WebInterface

/// What the MQTT service depends on: `[mqtt]`, and what its Home Assistant
/// device shows from the rest of the config (presets, CEC, the inputs and
/// their keymaps, the board). A reload that changes any of it restarts the
/// service, which announces the new entity set and removes the old.
struct FleetPart: Equatable, Sendable {
    var fleet: FleetSettings?
    var context: HomeAssistantContext

    init(settings: DaemonSettings) {
        fleet = settings.mqtt.fleet
        let presets = settings.gateway.presets.presets.sorted { $0.key < $1.key }.map { number, preset in
            HomeAssistantContext.Preset(number: number, name: HomeAssistantContext.Preset.name(url: preset.url, title: preset.title),
                                        url: preset.url)
        }
        // As the services decide: CEC as its part says, LIRC always, evdev with a device.
        let cec = CecPart(settings: settings.cec, expected: settings.expectsCec).runs
        var sources: [InputEvent.Source] = []
        if cec { sources.append(.cec) }
        sources.append(.lirc)
        if settings.evdev.device != nil { sources.append(.evdev) }
        let keymaps = settings.remoteKeymaps
        var mapped = Set<String>()
        for source in sources {
            for (key, action) in keymaps[source]?.bindings ?? [:] where action != .none {
                // `remote:KEY` bindings name the key after the colon.
                mapped.insert(key.split(separator: ":").last.map(String.init) ?? key)
            }
        }
        let machine = MachineModel.current()
        let board = settings.board?.model ?? ""
        context = HomeAssistantContext(presets: presets, tv: cec, keySources: sources.map(\.rawValue), mappedKeys: mapped,
                                       model: board.isEmpty ? machine.model : board, hardwareVersion: machine.version,
                                       configurationURL: settings.web.server?.pageURL(hostName: FleetSettings.hostname()),
                                       updates: settings.update.isEnabled)
    }
}
