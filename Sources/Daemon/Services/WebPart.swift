import Commands
import GatewayCore
import Interpreter
import SystemSupport
import WebInterface

/// What the web service depends on: `[web]` and the presets its buttons
/// show. A reload that changes either restarts it (sessions end).
struct WebPart: Equatable, Sendable {
    var web: WebSettings?
    var presets: [WebPreset]

    init(settings: DaemonSettings) {
        web = settings.web.server
        presets = settings.gateway.presets.presets.sorted { $0.key < $1.key }.map { number, preset in
            WebPreset(number: number, title: preset.title ?? preset.url)
        }
    }

    /// The browsers' commands enter the interpreter the console and MQTT use;
    /// a failure is logged (the page shows the state, not the reply).
    static func perform(_ interpreter: CommandInterpreter) -> @Sendable (GatewayCommand) async -> Void {
        let logger = Logger(label: "web")
        return { command in
            let pending = await interpreter.start(command)
            Task {
                let result = await pending.value()
                if !result.succeededEntirely {
                    logger.notice("a web control failed: \(result.textLines.joined(separator: "; "))")
                }
            }
        }
    }
}
