import Commands
import GatewayCore
import Interpreter
import SystemSupport
import WebInterface

/// What the web service depends on: `[web]`. A reload that changes it
/// restarts the service (sessions end); the presets its buttons show follow
/// the settings without a restart.
struct WebPart: Equatable, Sendable {
    var web: WebSettings?

    init(settings: DaemonSettings) {
        web = settings.web.server
    }

    /// The configured presets as the page's buttons show them.
    static func presets(_ settings: DaemonSettings) -> [WebPreset] {
        settings.gateway.presets.presets.sorted { $0.key < $1.key }.map { number, preset in
            WebPreset(number: number, title: preset.title ?? preset.url)
        }
    }

    /// The page's config editor: check-config's checks on the proposed text,
    /// and the reload SIGHUP starts (in a task of its own: applying a new
    /// `[web]` restarts this very service).
    static func configFile(_ daemon: Daemon, boardOverride: String?) -> WebConfigFile {
        let path = daemon.path
        return WebConfigFile(path: path, check: { text in
            do {
                _ = try ConfigCheck.run(path: path, text: text, boardOverride: boardOverride)
                return nil
            } catch {
                return "\(error)"
            }
        }, reload: { [daemon] in
            Task { await daemon.reload() }
        })
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
