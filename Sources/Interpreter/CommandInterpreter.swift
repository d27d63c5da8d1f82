import CastProtocol
import Commands
import GatewayCore
import GatewayModel
import SystemSupport

/// Carries out `GatewayCommand`s against the gateway, for every front end
/// (the serial console, `cast-gateway demo`, MQTT), and answers each with a
/// typed `CommandResult`; the front end renders it.
///
/// A module of its own above the core: it needs the `Gateway` actor, and the
/// language module (Commands) stays free of Cast so that front ends and the
/// remote's scheduler can use it without learning Cast.
public struct CommandInterpreter: Sendable {
    /// One remote key as `keys` lists it.
    public typealias RecentKey = (event: InputEvent, action: Action?)

    public let gateway: Gateway
    public let version: String
    /// Where `key NAME` presses go: the remote control, as real keys do.
    public let keys: (any InputHandler)?
    /// The remote control's recent keys (it sees every key), for `keys`.
    public let recentKeys: @Sendable () -> [RecentKey]
    /// The kiosk player, when `[kiosk]` is configured (`checkout`, `playlist ...`).
    public let kiosk: (any KioskControl)?
    /// Hands A/B updates to the root side; nil: this front end cannot update (one-shot tools).
    public let updater: (any UpdateControl)?
    /// Where volume steps and relative seeks go, coalesced with the remote's;
    /// nil performs them at once (one-shot tools, tests of the gateway alone).
    public let scheduler: ActionScheduler?

    /// Where the commands are typed (the help differs).
    public let context: GatewayCommand.Context

    public init(gateway: Gateway, version: String, keys: (any InputHandler)? = nil,
                recentKeys: @escaping @Sendable () -> [RecentKey] = { [] }, kiosk: (any KioskControl)? = nil,
                scheduler: ActionScheduler? = nil, context: GatewayCommand.Context = .console,
                updater: (any UpdateControl)? = nil) {
        self.gateway = gateway
        self.version = version
        self.keys = keys
        self.recentKeys = recentKeys
        self.kiosk = kiosk
        self.updater = updater
        self.scheduler = scheduler
        self.context = context
    }

    // MARK: Text lines (the console, the demo)

    /// Parses one command line and takes it in (see `start(_:)`). A
    /// read-only front end (`[console] mode = status-only`, for a serial port
    /// in a public place) refuses every command that changes something.
    public func start(line: String, readOnly: Bool = false) async -> PendingResult {
        let command: GatewayCommand
        do {
            command = try GatewayCommand(parsing: line.trimmingSpaces())
        } catch {
            return PendingResult(.failure(CommandError(error)))
        }
        if readOnly, !command.isReadOnly {
            return PendingResult(.failure(CommandError(.refused, "this console only shows status ([console] mode = status-only)")))
        }
        return await start(command)
    }

    /// The console's text answer to one line (blank: nothing).
    public func run(_ line: String) async -> [String] {
        guard !line.trimmingSpaces().isEmpty else { return [] }
        return await start(line: line).value().textLines
    }

    /// Like `run`, but refuses every command that changes something.
    public func runReadOnly(_ line: String) async -> [String] {
        guard !line.trimmingSpaces().isEmpty else { return [] }
        return await start(line: line, readOnly: true).value().textLines
    }

    /// The console's text answer to `command`.
    public func run(_ command: GatewayCommand) async -> [String] {
        await execute(command).textLines
    }

    // MARK: Commands

    /// Carries out `command` and waits for its result.
    public func execute(_ command: GatewayCommand) async -> CommandResult {
        await start(command).value()
    }

    /// Takes `command` in, in order. A volume step or relative seek goes to
    /// the scheduler, coalesced with every other front end's and the
    /// remote's, and this returns at once: its result comes with the request
    /// that carries it. Anything else first waits for the steps taken in
    /// before it (so a front end's commands keep their order), then runs.
    public func start(_ command: GatewayCommand) async -> PendingResult {
        if case .action(let action) = command, let scheduler, ActionScheduler.coalesces(action) {
            return PendingResult(step: await scheduler.schedule(action)) { CommandError(failure: $0) }
        }
        await scheduler?.settle()
        do {
            return PendingResult(.success(try await perform(command)))
        } catch let error as CommandError {
            return PendingResult(.failure(error))
        } catch {
            return PendingResult(.failure(CommandError(failure: error)))
        }
    }

    private func perform(_ command: GatewayCommand) async throws -> CommandReply {
        switch command {
        case .help: return CommandReply(GatewayCommand.helpText(for: context).split(separator: "\n").map(String.init))
        case .version: return CommandReply(["cast-gateway \(version)"])
        case .status: return CommandReply(await statusLines())
        case .devices(let filter):
            let browsing = gateway.wantDiscovery()
            let state = await gateway.state
            var lines = DeviceList.page(state.devices, current: state.deviceAddress, matching: filter)
            if let problem = state.discoveryProblem { lines.append("(discovery: \(problem))") }
            if !browsing, state.devices.isEmpty { lines.append("(\(Gateway.discoveryStarting))") }
            return CommandReply(lines)
        case .use(let query):
            try await gateway.use(query)
        case .keys:
            let recent = recentKeys()
            guard !recent.isEmpty else { return CommandReply(["no remote keys yet"]) }
            return CommandReply(recent.map { "\($0.event.description) -> \($0.action?.name ?? "(not mapped)")" })
        case .key(let name):
            guard let keys else { throw CommandError(.unavailable, "remote input is not set up here") }
            await keys.handle(InputEvent(source: .console, key: name))
        case .json:
            throw CommandError(.refused, "json mode is available on the serial console")
        case .quit:
            return CommandReply([])
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
            return CommandReply([value == nil ? "ok: launch credentials cleared" : "ok: launch credentials set (not shown)"])
        case .checkout:
            return CommandReply(try await requireKiosk().checkout())
        case .playlist(let request):
            let kiosk = try requireKiosk()
            let reply: KioskReply
            switch request {
            case .show: return CommandReply(await kiosk.playlistStatus())
            case .reload: reply = try await kiosk.reloadPlaylist()
            case .start: reply = try await kiosk.startLoop()
            case .stop: reply = try await kiosk.stopLoop()
            case .next: reply = try await kiosk.skip(by: 1)
            case .previous: reply = try await kiosk.skip(by: -1)
            case .play(let item): reply = try await kiosk.play(item: item)
            }
            return CommandReply(reply)
        case .update(let request):
            return try await update(request)
        case .logLevel(let level):
            Logger.level = level
            return CommandReply(["ok: log level \(level.name)"])
        }
        return CommandReply()
    }

    private func statusLines() async -> [String] {
        let state = await gateway.state
        var lines = [StatusLine.render(state, now: gateway.timeSource.now.seconds)]
        // The link in words, for installers and scripts reading the console.
        lines.append("  link: \(state.link.name)" + (state.deviceAddress.isEmpty ? "" : " to \(state.deviceAddress)"))
        if let problem = state.configProblem { lines.append("  config: \(problem)") }
        if let problem = state.kioskProblem { lines.append("  kiosk: \(problem)") }
        if let update = state.update { lines.append("  update: \(update.summary)") }
        if let progress = state.updateProgress { lines.append("  updating: \(progress.summary)") }
        if state.link == .connected {
            lines.append("  device authentication: \(state.authentication)" + (state.authenticationProblem.map { ": \($0)" } ?? ""))
        }
        if let tv = state.tv { lines.append("  tv: \(tv.summary)") }
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
    }

    private func update(_ command: GatewayCommand.UpdateCommand) async throws -> CommandReply {
        let state = await gateway.state
        switch command {
        case .show:
            var lines = ["installed: \(version)"]
            if let progress = state.updateProgress { lines.append("now: \(progress.summary)") }
            if let report = state.update { lines.append("last: \(report.summary)") }
            if let offer = state.updateOffer { lines.append("announced: \(offer.version ?? "a bundle") at \(offer.shownURL)") }
            if updater == nil { lines.append("(this front end cannot start updates)") }
            return CommandReply(lines)
        case .latest:
            guard let offer = state.updateOffer else {
                throw CommandError(.unavailable, "no update is announced to the fleet (the retained <prefix>/all/update topic is empty); use update URL [SHA256]")
            }
            if offer.version == version { return CommandReply(["ok: already on \(version); nothing to install"]) }
            return CommandReply(try await requireUpdater().install(offer))
        case .install(let request):
            return CommandReply(try await requireUpdater().install(request))
        }
    }

    private func requireUpdater() throws(GatewayError) -> any UpdateControl {
        guard let updater else { throw GatewayError(.unavailable, "updates are not available here: run the command on the gateway's console, MQTT or web interface") }
        return updater
    }

    private func requireKiosk() throws(GatewayError) -> any KioskControl {
        guard let kiosk else {
            throw GatewayError(.unavailable, "no kiosk loop is configured: add a [kiosk] section with playlist, media or app-id")
        }
        return kiosk
    }
}

extension CommandReply {
    /// A kiosk command's typed answer: its lines, and each step that failed as a problem.
    init(_ kiosk: KioskReply) {
        self.init(kiosk.lines, problems: kiosk.problems.map(\.message))
    }
}

extension CommandError {
    /// A failure of the gateway or the receiver, with its message as it was.
    public init(failure error: any Error) {
        switch error {
        case let error as CommandError: self = error
        case let error as GatewayError:
            let code: Code = switch error.code {
            case .noDevice, .unavailable, .timeout: .unavailable
            case .unknownPreset, .badArgument: .badArgument
            }
            self.init(code, error.message)
        case is ActionScheduler.Stopped: self.init(.notRun, "\(error)")
        default: self.init(.failed, "\(error)")
        }
    }
}
