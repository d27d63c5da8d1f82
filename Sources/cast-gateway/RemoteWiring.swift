import GatewayCore
import GatewayModel
import RemoteInput

/// Connects remote inputs to the gateway: keymaps from the config, one
/// scheduler for all sources, history for the console's `keys`, and the
/// console's `key NAME`.
func makeRemoteControl(for gateway: Gateway, configuration: GatewayConfiguration) async -> RemoteControl {
    func overrides(_ source: String) -> [(key: String, action: Action)] {
        (configuration.keymaps[source] ?? []).map { (key: $0.input, action: $0.action) }
    }
    let keymaps: [InputEvent.Source: Keymap] = [
        .cec: Keymap.standard(for: .cec, overrides: overrides("cec")),
        .lirc: Keymap.standard(for: .lirc, overrides: overrides("lirc")),
        .evdev: Keymap.standard(for: .evdev, overrides: overrides("evdev")),
    ]
    // Failures are logged and shown in the state by the gateway itself.
    let scheduler = ActionScheduler { action in try? await gateway.perform(action) }
    let remote = RemoteControl(keymaps: keymaps, scheduler: scheduler) { event, action in
        await gateway.recordInput(event, action: action)
    }
    await gateway.setInputHandler { event in await remote.handle(event) }
    return remote
}
