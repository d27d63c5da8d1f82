import CastProtocol
import GatewayModel
import SystemSupport

/// Runs console commands against the gateway and phrases the answers.
/// Shared by the serial console and `cast-gateway demo`.
public struct CommandInterpreter: Sendable {
    public let gateway: Gateway
    public let version: String
    /// Where `key NAME` presses go: the remote control, as real keys do.
    public let keys: (any InputHandler)?
    /// The kiosk player, when `[kiosk]` is configured (`checkout`, `playlist ...`).
    public let kiosk: (any KioskControl)?

    /// Where the commands are typed (the help differs).
    public let context: ConsoleCommand.Context

    public init(gateway: Gateway, version: String, keys: (any InputHandler)? = nil, kiosk: (any KioskControl)? = nil,
                context: ConsoleCommand.Context = .console) {
        self.gateway = gateway
        self.version = version
        self.keys = keys
        self.kiosk = kiosk
        self.context = context
    }

    /// Like `run`, but refuses every command that changes something
    /// (`[console] mode = status-only`, for a serial port in a public place).
    public func runReadOnly(_ line: String) async -> [String] {
        if let command = try? ConsoleCommand(parsing: line.trimmingSpaces()), !command.isReadOnly {
            return ["error: this console only shows status ([console] mode = status-only)"]
        }
        return await run(line)
    }

    /// The answer to one command line: output lines, errors start with `error:`.
    public func run(_ line: String) async -> [String] {
        let trimmed = line.trimmingSpaces()
        guard !trimmed.isEmpty else { return [] }
        let command: ConsoleCommand
        do {
            command = try ConsoleCommand(parsing: trimmed)
        } catch {
            return ["error: \(error.message)"]
        }
        return await run(command)
    }

    public func run(_ command: ConsoleCommand) async -> [String] {
        do {
            switch command {
            case .help: return ConsoleCommand.helpText(for: context).split(separator: "\n").map(String.init)
            case .version: return ["cast-gateway \(version)"]
            case .status:
                let state = await gateway.state
                var lines = [StatusLine.render(state, now: gateway.timeSource.now.seconds)]
                // The link in words, for installers and scripts reading the console.
                lines.append("  link: \(state.link.name)" + (state.deviceAddress.isEmpty ? "" : " to \(state.deviceAddress)"))
                if let problem = state.configProblem { lines.append("  config: \(problem)") }
                if let problem = state.kioskProblem { lines.append("  kiosk: \(problem)") }
                if state.link == .connected {
                    lines.append("  device authentication: \(state.authentication)" + (state.authenticationProblem.map { ": \($0)" } ?? ""))
                }
                for (_, problem) in state.serviceProblems.sorted(by: { $0.key < $1.key }) { lines.append("  \(problem)") }
                for (_, failure) in state.serviceFailures.sorted(by: { $0.key < $1.key }) { lines.append("  \(failure)") }
                for (source, problem) in state.inputProblems.sorted(by: { $0.key < $1.key }) {
                    lines.append("  \(source): \(problem)")
                }
                let tracks = await gateway.subtitleTracks()
                if !tracks.isEmpty {
                    lines.append("  subtitles: " + tracks.map { "\($0.id)=\($0.name)\($0.active ? " (on)" : "")" }.joined(separator: ", "))
                }
                return lines
            case .devices(let filter):
                let state = await gateway.state
                var lines = DeviceList.page(state.devices, current: state.deviceAddress, matching: filter)
                if let problem = state.discoveryProblem { lines.append("(discovery: \(problem))") }
                return lines
            case .use(let query):
                try await gateway.use(query)
            case .keys:
                let recent = await gateway.recentInputs
                guard !recent.isEmpty else { return ["no remote keys yet"] }
                return recent.map { "\($0.event.description) -> \($0.action?.name ?? "(not mapped)")" }
            case .key(let name):
                guard let keys else { return ["error: remote input is not set up here"] }
                await keys.handle(InputEvent(source: .console, key: name))
            case .json:
                return ["error: json mode is available on the serial console"]
            case .quit:
                return []
            case .action(let action):
                try await gateway.perform(action)
            case .subtitleTrack(let track):
                try await gateway.selectSubtitleTrack(track)
            case .cast(let url, let title):
                try await gateway.cast(CastRequest(url: url, title: title))
            case .queue(let url):
                try await gateway.enqueue(CastRequest(url: url))
            case .launch(let appID, let android):
                try await gateway.launch(appID: appID, allowsAndroidReceiver: android)
            case .credentials(let value):
                await gateway.setLaunchCredentials(value.map { LaunchCredentials(credentials: $0) })
                return [value == nil ? "ok: launch credentials cleared" : "ok: launch credentials set (not shown)"]
            case .checkout:
                return try await requireKiosk().checkout()
            case .playlist(let request):
                let kiosk = try requireKiosk()
                switch request {
                case .show: return await kiosk.playlistStatus()
                case .reload: return try await kiosk.reloadPlaylist()
                case .start: return try await kiosk.startLoop()
                case .stop: return try await kiosk.stopLoop()
                case .next: return try await kiosk.skip(by: 1)
                case .previous: return try await kiosk.skip(by: -1)
                }
            case .logLevel(let level):
                Logger.level = level
                return ["ok: log level \(level.name)"]
            }
            return ["ok"]
        } catch {
            return ["error: \(error)"]
        }
    }

    private func requireKiosk() throws(GatewayError) -> any KioskControl {
        guard let kiosk else {
            throw GatewayError(.unavailable, "no kiosk loop is configured: add a [kiosk] section with playlist, media or app-id")
        }
        return kiosk
    }
}
