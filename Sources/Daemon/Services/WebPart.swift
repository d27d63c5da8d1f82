import Commands
import Discovery
import GatewayCore
import GatewayModel
import Interpreter
import RemoteInput
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

    /// The remote inputs for the status page: how each is set up in the
    /// settings in force, and the last key the remote control read from it
    /// (the console's `keys`).
    static func inputs(settings: StateBroadcaster<DaemonSettings>, remote: RemoteControl) -> @Sendable () -> [WebInput] {
        { [settings, remote] in
            let current = settings.current
            let recent = remote.recentKeys
            func last(_ source: InputEvent.Source) -> String? {
                recent.last { $0.event.source == source }.map { "\($0.event.description) -> \($0.action?.name ?? "(not mapped)")" }
            }
            let socket = current.lirc.socket ?? LircSource.defaultSocket
            let cec = CecPart(settings: current.cec, expected: current.expectsCec)
            return [
                WebInput(name: "lirc", setup: current.expectsLirc ? "lircd at \(socket)" : "lircd at \(socket), if it runs (no [lirc] in the file)",
                         lastKey: last(.lirc)),
                WebInput(name: "evdev", setup: current.evdev.device, lastKey: last(.evdev)),
                WebInput(name: "cec", setup: cec.expected ? "[cec] in the file" : cec.runs ? "adapter found (/dev/cec0)" : nil,
                         lastKey: last(.cec)),
            ]
        }
    }

    /// The page's Software section: the release this box reports and
    /// whether `[update]` lets it take A/B updates now.
    static func software(settings: StateBroadcaster<DaemonSettings>, version: String) -> @Sendable () -> WebSoftware? {
        { [settings] in WebSoftware(version: version, updates: settings.current.update.isEnabled) }
    }

    /// Publishes the page over mDNS through avahi (`_http._tcp`, `_https._tcp` with TLS, the box's
    /// name); returns what withdraws it. Without avahi the page still works:
    /// the failure is logged once, nothing is published.
    static func announce(_ record: WebServiceRecord) -> (@Sendable () -> Void)? {
        do {
            let publisher = try AvahiPublisher(name: record.name, port: record.port, txt: record.txt,
                                               serviceType: record.type)
            publisher.start()
            return { publisher.stop() }
        } catch {
            Logger(label: "web").warning("the page is not published over mDNS: \(error)")
            return nil
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
