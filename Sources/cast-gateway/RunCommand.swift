#if canImport(Glibc)
import Glibc
#endif
import Discovery
import GatewayCore
import GatewayModel
import RemoteInput
import StatusOutput
import SystemSupport

/// `cast-gateway run`: the daemon.
func runDaemon(_ arguments: inout ArgumentReader) async throws -> Int32 {
    let path = try arguments.option("--config") ?? GatewayConfiguration.defaultPath
    let logLevel = try arguments.option("--log-level")
    _ = try arguments.finish(maximumPositionals: 0)
    let logger = Logger(label: "main")
    let configuration: GatewayConfiguration
    do {
        configuration = try GatewayConfiguration.load(path: path)
    } catch {
        logger.error("config error: \(error)")
        return ExitCode.config
    }
    Logger.level = try logLevel.map(parseLogLevel) ?? configuration.logLevel
    for warning in configuration.warnings { logger.warning(warning) }
    let gateway = Gateway(configuration: configuration, connector: try makeTLSConnector(), version: gatewayVersion)
    logger.notice("cast-gateway \(gatewayVersion) starting with \(path)")
    // Discovery runs even for a fixed host: 'devices', 'use' and next-device use it.
    let discovery = try DeviceDiscovery()
    discovery.start()
    await gateway.follow(discovery: discovery.snapshots())
    let remote = await makeRemoteControl(for: gateway, configuration: configuration)
    // A source's absence is a problem (LED error 4, console status) only when
    // the config asks for it; the sources run anyway, so a late lircd works.
    let lircExpected = configuration.configures("lirc")
    let lirc = LircSource(socketPath: configuration.lircSocket) { problem in
        if lircExpected { Task { await gateway.setInputProblem(problem, for: "lirc") } }
    }
    let lircEvents = remote.follow(lirc.events)
    lirc.start()
    var cec: CecSource?
    var cecEvents: Task<Void, Never>?
    let cecDevicePresent = FileSystem.permissions(of: "/dev/cec0") != nil
    if configuration.configures("cec") || cecDevicePresent {
        let role = CecSource.Role(rawValue: configuration.cecRole.rawValue) ?? .playback
        let source = CecSource(settings: .init(adapter: configuration.cecAdapter, role: role,
                                               osdName: configuration.cecOSDName)) { problem in
            Task { await gateway.setInputProblem(problem, for: "cec") }
        }
        cecEvents = remote.follow(source.events)
        source.start()
        let input = configuration.tvInput
        await gateway.setTVControl(powerOn: { source.powerOnTV(selecting: input) }, standby: { source.standbyTV() })
        cec = source
    }
    var evdev: EvdevSource?
    var evdevEvents: Task<Void, Never>?
    if let device = configuration.evdevDevice {
        let source = EvdevSource(device: device, grab: configuration.evdevGrab) { problem in
            Task { await gateway.setInputProblem(problem, for: "evdev") }
        }
        evdevEvents = remote.follow(source.events)
        source.start()
        evdev = source
    }
    await gateway.start()
    let notifier = SystemdNotifier()
    notifier.send("READY=1")
    let leds = makeLEDPanel(configuration, logger: logger)
    await leds?.show(LEDPattern.patterns(for: await gateway.state, starting: true, inputMissing: false))
    let (pushes, pushContinuation) = AsyncStream.makeStream(of: SerialConsole.Push.self, bufferingPolicy: .bufferingNewest(8))
    let reporter = Task {
        var announcer = StatusAnnouncer()
        for await state in gateway.states() {
            let now = gateway.timeSource.now.seconds
            await leds?.show(LEDPattern.patterns(for: state, starting: false, inputMissing: !state.inputProblems.isEmpty))
            if let line = announcer.announcement(for: state, now: now) {
                logger.notice(line)
                notifier.status(line)
                pushContinuation.yield(SerialConsole.Push(text: line, json: StatusLine.json(state, now: now)))
            }
        }
    }
    let tvPower = (cec != nil && (configuration.tvPowerOnWhenCasting || configuration.tvStandbyAfter != nil))
        ? startTVPowerPolicy(gateway, configuration: configuration, logger: logger) : nil
    var console: SerialConsole?
    if configuration.consoleDevice != "none" {
        let interpreter = CommandInterpreter(gateway: gateway, version: gatewayVersion)
        console = SerialConsole(path: configuration.consoleDevice, baud: configuration.consoleBaud) { line in
            await interpreter.run(line)
        }
        console?.start(pushes: pushes)
    }
    for await signal in SignalStream.watch([SIGINT, SIGTERM, SIGHUP]) {
        if signal == SIGHUP {
            logger.notice("SIGHUP: the configuration is read at start only; restart the service to apply changes")
            continue
        }
        logger.notice("stopping (signal \(signal))")
        break
    }
    notifier.send("STOPPING=1")
    reporter.cancel()
    await leds?.shutdown()
    console?.stop()
    lirc.stop()
    lircEvents.cancel()
    evdev?.stop()
    evdevEvents?.cancel()
    tvPower?.cancel()
    cec?.stop()
    cecEvents?.cancel()
    await gateway.stop()
    discovery.stop()
    return ExitCode.ok
}

func parseLogLevel(_ text: String) throws -> LogLevel {
    guard let level = LogLevel(name: text) else {
        throw UsageError("--log-level takes error, warning, notice, info, debug or trace, not '\(text)'")
    }
    return level
}

/// Claims the configured LED lines; a missing one is a warning naming it,
/// and the gateway runs on without that LED.
func makeLEDPanel(_ configuration: GatewayConfiguration, logger: Logger) -> LEDPanel? {
    var lines: [LEDRole: any LEDLine] = [:]
    for role in LEDRole.allCases {
        guard let text = configuration.leds[role.rawValue], let spec = LEDLineSpec(parsing: text) else { continue }
        do {
            lines[role] = try GPIOLEDLine(spec)
        } catch {
            logger.warning("\(role.rawValue) LED disabled: \(error)")
        }
    }
    return lines.isEmpty ? nil : LEDPanel(lines: lines)
}

/// Powers the TV on when casting starts and puts it in standby after the
/// configured idle time, through the gateway's TV actions (HDMI-CEC). State
/// changes and the standby deadline arrive on one stream (nil = deadline).
func startTVPowerPolicy(_ gateway: Gateway, configuration: GatewayConfiguration, logger: Logger) -> Task<Void, Never> {
    Task {
        var policy = TVPowerPolicy(powerOnWhenCasting: configuration.tvPowerOnWhenCasting,
                                   standbyAfter: configuration.tvStandbyAfter)
        let clock = gateway.timeSource
        let (events, continuation) = AsyncStream.makeStream(of: GatewayState?.self)
        let forward = Task {
            for await state in gateway.states() { continuation.yield(state) }
            continuation.finish()
        }
        var deadline: Task<Void, Never>?
        var latest = GatewayState()
        for await event in events {
            if let event { latest = event }
            if let command = policy.update(appRunning: latest.appID != nil, connected: latest.link == .connected, now: clock.now) {
                logger.notice(command == .powerOn ? "casting started: powering the TV on" : "nothing cast for a while: TV standby")
                try? await gateway.perform(command == .powerOn ? .tvPowerOn : .tvStandby)
            }
            deadline?.cancel()
            deadline = nil
            if let due = policy.nextCheck(after: clock.now) {
                let wait = due - clock.now
                deadline = Task {
                    try? await clock.sleep(for: wait)
                    if !Task.isCancelled { continuation.yield(nil) }
                }
            }
        }
        forward.cancel()
        deadline?.cancel()
    }
}
