#if canImport(Glibc)
import Glibc
#endif
import Configuration
import CastClient
import Commands
import Discovery
import Fleet
import GatewayCore
import GatewayModel
import Interpreter
import Kiosk
import MediaServer
import RemoteInput
import ServiceLifecycle
import StatusOutput
import SystemSupport
import WebInterface

/// `cast-gateway run` as a list of services with one lifecycle, and the live
/// reload that feeds them new settings.
///
/// Inputs flow one way: LIRC, evdev, CEC and the console's `key NAME` all
/// feed one bounded `InputEvent` stream; the remote control maps it through
/// the keymaps into actions for the gateway. State flows back as
/// `GatewayState` snapshots to the status reporter, LEDs and console.
public final class Daemon: Sendable {
    public let path: String
    public let gateway: Gateway
    /// The settings in force; services that depend on a part restart when it changes.
    public let settings: StateBroadcaster<DaemonSettings>
    private let boardOverride: String?
    /// A `--log-level` given on the command line wins over the file's `[log] level`.
    private let logLevelOverride: LogLevel?
    /// Maps every input's keys into actions (a service of its own).
    public let remote: RemoteControl
    /// Paces every front end's actions: the remote's keys, and the console's and MQTT's volume steps and seeks.
    public let scheduler: ActionScheduler
    private let inputs: (events: AsyncStream<InputEvent>, sink: InputSink)
    private let pushes = StateBroadcaster<SerialConsole.Push?>(nil)
    /// Every remote key once the keymaps have read it (Home Assistant's key events).
    private let keyPresses = EventBroadcaster<KeyPress>()
    private let notifier: SystemdNotifier
    private let timeSource: any TimeSource
    private let version: String
    private let logger = Logger(label: "main")
    /// The kiosk player that runs now (`checkout`, `playlist ...`, play keys for `start = key`).
    public let kiosk = KioskHandle()
    /// Hands `update URL` and Home Assistant's Install to the root side.
    public let updater: Updater
    private let mediaLocator: any MediaLocator
    /// The `[media]` server that runs now, for local paths.
    private let mediaServer = CurrentMediaServer()
    private let wallClock: any WallClock
    /// Where commit-slot writes what happened to the last A/B update; nil: not read.
    private let updateReportPath: String?
    /// commit-slot's report on an A/B image (deploy/rauc/commit-slot).
    public static let updateReportPath = UpdateSettings.defaultReport

    public init(path: String, settings: DaemonSettings, boardOverride: String? = nil, logLevelOverride: LogLevel? = nil,
                connector: @escaping CastClient.Connector, authenticator: @escaping Gateway.AuthenticatorFactory = { _ in nil },
                timeSource: any TimeSource = SystemTimeSource(), notifier: SystemdNotifier = SystemdNotifier(), version: String,
                mediaLocator: (any MediaLocator)? = nil, wallClock: any WallClock = SystemWallClock(),
                updateReportPath: String? = nil) {
        self.path = path
        self.updateReportPath = updateReportPath
        self.settings = StateBroadcaster(settings)
        self.boardOverride = boardOverride
        self.logLevelOverride = logLevelOverride
        self.timeSource = timeSource
        self.notifier = notifier
        self.version = version
        let locator = mediaLocator ?? mediaServer
        self.mediaLocator = locator
        self.wallClock = wallClock
        gateway = Gateway(settings: settings.gateway, connector: connector, timeSource: timeSource, version: version,
                          authenticator: authenticator, mediaLocator: locator)
        inputs = InputEvent.makeStream()
        let gateway = self.gateway
        let current = self.settings
        updater = Updater(settings: { current.current.update }, gateway: gateway)
        // A remote key has no one to answer: its failure is logged here, once (and shown in the state).
        let keyLogger = Logger(label: "remote")
        let scheduler = ActionScheduler(timeSource: timeSource, unanswered: { action, error in
            keyLogger.warning("\(action.name) failed: \(error)")
        }, performer: gateway)
        self.scheduler = scheduler
        let kiosk = self.kiosk
        let keyPresses = self.keyPresses
        remote = RemoteControl(keymaps: settings.remoteKeymaps, scheduler: scheduler, events: inputs.events) { event, action in
            keyPresses.publish(KeyPress(event: event, mapped: action != nil))
            await kiosk.keyPressed(action)
        }
        Logger.level = logLevelOverride ?? settings.log.level
    }

    /// The front ends' interpreter: commands against the gateway, `key NAME`
    /// into the input stream, volume steps and seeks through the scheduler.
    public func interpreter(for context: GatewayCommand.Context = .console) -> CommandInterpreter {
        let remote = self.remote
        return CommandInterpreter(gateway: gateway, version: version, keys: remote, recentKeys: { remote.recentKeys }, kiosk: kiosk,
                                  scheduler: scheduler, context: context, updater: updater)
    }

    /// Loads the libraries of the parts the settings turn on whose first use
    /// is timed: [media]'s first listen races the Cast connection (a kiosk
    /// asks for its URLs when it connects), so libmicrohttpd loads before the
    /// services start, as it did when it was linked. Others load as they run.
    public func loadLibraries() async {
        if settings.current.media.server != nil { await MediaServer.preload() }
    }

    /// The daemon's services in one group: a failing one is shown in the
    /// gateway's state (`status`, the error LED, MQTT) until it recovers.
    public func serviceGroup(discovery: DeviceDiscovery?, reloadSignals: [Int32] = [SIGHUP], watchdog: Duration? = nil) -> ServiceGroup {
        ServiceGroup(services: services(discovery: discovery, reloadSignals: reloadSignals, watchdog: watchdog),
                     timeSource: timeSource, onFailure: serviceFailureReporter)
    }

    /// Where the service group's failure reports go: the gateway's state.
    public var serviceFailureReporter: ServiceGroup.FailureReporter {
        { [gateway] service, failure in await gateway.setServiceFailure(failure, for: service) }
    }

    /// The services in start order, each started once the one before it
    /// runs; the group stops them in reverse, so the notifier says STOPPING
    /// first and the LEDs go dark last.
    public func services(discovery: DeviceDiscovery?, reloadSignals: [Int32] = [SIGHUP],
                         watchdog: Duration? = nil) -> [any Service] {
        let gateway = self.gateway, sink = inputs.sink, timeSource = self.timeSource, pushes = self.pushes
        let interpreter = self.interpreter(), version = self.version, startedAt = timeSource.now
        let kiosk = self.kiosk, mediaLocator = self.mediaLocator, wallClock = self.wallClock, mediaServer = self.mediaServer
        let keyPresses = self.keyPresses, settings = self.settings
        let configFile = WebPart.configFile(self, boardOverride: boardOverride)
        let webInputs = WebPart.inputs(settings: settings, remote: remote)
        var services: [any Service] = [
            ReconfigurableService(name: "leds", settings: settings, part: \.leds) { leds in
                leds.lines.isEmpty ? nil : LEDService(settings: leds, gateway: gateway, timeSource: timeSource)
            },
            CastSessionService(gateway: gateway, discovery: discovery),
        ]
        if let discovery {
            services.append(discovery)
            services.append(DiscoverySettingsService(discovery: discovery, settings: settings, gateway: gateway))
        }
        services += [
            remote,
            ReconfigurableService(name: "lirc", settings: settings, part: { LircPart(settings: $0.lirc, expected: $0.expectsLirc) }) { part in
                LircSource(socketPath: part.settings.socket, sink: sink).service(timeSource: timeSource, quiet: !part.expected) { problem in
                    await gateway.setInputProblem(problem, for: "lirc")
                }
            },
            ReconfigurableService(name: "evdev", settings: settings, part: \.evdev) { evdev in
                evdev.device.map { device in
                    EvdevSource(device: device, grab: evdev.grab, sink: sink).service(timeSource: timeSource) { problem in
                        await gateway.setInputProblem(problem, for: "evdev")
                    }
                }
            },
            ReconfigurableService(name: "cec", settings: settings, part: { CecPart(settings: $0.cec, expected: $0.expectsCec) }) { part in
                guard part.runs else { return nil }
                return CecService(settings: part.settings, expected: part.expected, gateway: gateway, sink: sink, timeSource: timeSource)
            },
            ReconfigurableService(name: "console", settings: settings, part: \.console) { console in
                console.device.map { device in
                    SerialConsole(path: device, baud: console.baud, pushes: pushes.subscribe().compacted(), timeSource: timeSource) { line in
                        await interpreter.start(line: line, readOnly: console.mode == .statusOnly)
                    }
                }
            },
            ReconfigurableService(name: "mqtt", settings: settings, part: { FleetPart(settings: $0) }) { part in
                part.fleet.map { fleet in
                    // Home Assistant's device select offers the discovered devices.
                    if fleet.haDiscovery { gateway.wantDiscovery() }
                    // From the MQTT client's queue into the gateway's actor, in order.
                    return ReportingService(cleared: nil, consume: { problem in await gateway.setServiceProblem(problem, for: "mqtt") }) { report in
                        FleetService(settings: fleet, handler: FleetCommands(interpreter: interpreter), states: { gateway.states() },
                                     extras: FleetStatusExtras(version: version, startedAt: startedAt), timeSource: timeSource,
                                     onStatusChange: { status in report(status.problem.map { "mqtt: \($0)" }) },
                                     context: part.context, keys: { keyPresses.subscribe() },
                                     onUpdateOffer: { offer in await gateway.setUpdateOffer(offer) })
                    }
                }
            },
            ReconfigurableService(name: "media", settings: settings, part: \.media) { media in
                media.server.map { MediaService(settings: $0, gateway: gateway, locator: mediaServer) }
            },
            ReconfigurableService(name: "kiosk", settings: settings, part: \.kiosk) { settings in
                // Without [kiosk], a kiosk's items leave the state (a reload turned it off).
                settings.isEnabled
                    ? KioskService(settings: settings, gateway: gateway, handle: kiosk, locator: mediaLocator, wallClock: wallClock) as any Service
                    : KioskOff(gateway: gateway)
            },
            ReconfigurableService(name: "web", settings: settings, part: { WebPart(settings: $0) }) { part in
                part.web.map { web in
                    WebInterfaceService(settings: web, presets: { settings.subscribe().mapped(WebPart.presets) }, config: configFile,
                                        inputs: webInputs, software: WebPart.software(settings: settings, version: version), hostName: FleetSettings.hostname(), announce: WebPart.announce, states: { gateway.states() }, timeSource: timeSource, perform: WebPart.perform(interpreter))
                }
            },
            ReconfigurableService(name: "update", settings: settings, part: \.update) { update in
                update.isEnabled ? UpdateProgressService(path: update.progress, gateway: gateway) : nil
            },
            StatusReporterService(gateway: gateway, notifier: notifier, pushes: pushes),
            ReloadService(daemon: self, signals: reloadSignals),
            NotifierService(notifier: notifier, gateway: gateway, timeSource: timeSource, watchdogInterval: watchdog),
        ]
        return services
    }

    /// Re-reads the config file and applies what changed, without touching a
    /// cast session the change does not affect. An invalid file keeps the
    /// running settings: the error (file:line:key) is logged once, shown in
    /// `status` and on the error LED. Returns the error, if any.
    @discardableResult
    public func reload() async -> ConfigError? {
        let new: DaemonSettings
        do {
            new = try DaemonSettings.load(path: path, boardOverride: boardOverride)
        } catch {
            logger.error("configuration not reloaded, the running one stays in force: \(error)")
            await gateway.setConfigProblem("\(error)")
            return error
        }
        for warning in new.warnings { logger.warning(warning) }
        Logger.level = logLevelOverride ?? new.log.level
        remote.setKeymaps(new.remoteKeymaps)
        await gateway.apply(new.gateway)
        await gateway.setConfigProblem(nil)
        await readUpdateReport()
        let kioskUnchanged = settings.current.kiosk == new.kiosk
        settings.publish(new)
        // A changed [kiosk] restarts the player, which reads the file afresh; otherwise the file may have changed alone.
        if kioskUnchanged { await kiosk.reloadIfRunning() }
        logger.notice("configuration reloaded from \(path)")
        return nil
    }

    /// Reads commit-slot's report of the last A/B update into the state: at
    /// start, and at every reload (commit-slot reloads the gateway when it
    /// writes one). No file: no report. A broken one is logged and shows nothing.
    public func readUpdateReport() async {
        guard let updateReportPath else { return }
        var report: UpdateReport?
        do {
            if let text = try FileSystem.readRegularFile(updateReportPath, limit: 4096) {
                report = try UpdateReport(parsing: text)
            }
        } catch {
            logger.warning("the update report \(updateReportPath) is not shown: \(error) (commit-slot writes it; remove it to clear)")
        }
        if let report, report.outcome != .updated { logger.warning("update: \(report.summary)") }
        await gateway.setUpdateReport(report)
    }
}

/// What the LIRC service depends on.
struct LircPart: Equatable, Sendable {
    var settings: LircSettings
    var expected: Bool
}

/// What the CEC service depends on.
struct CecPart: Equatable, Sendable {
    var settings: CecSettings
    var expected: Bool

    /// Without [cec] in the file, CEC runs only where an adapter exists (the kernel's /dev/cec0).
    var runs: Bool { expected || FileSystem.exists("/dev/cec0") }
}

extension AsyncStream where Element: Sendable {
    /// The non-nil elements of a stream of optionals.
    func compacted<T: Sendable>() -> AsyncStream<T> where Element == T? {
        // The stream has one consumer, which calls next() one at a time.
        let iterator = UncheckedSendable(Box(makeAsyncIterator()))
        return AsyncStream<T> {
            while let element = await iterator.value.next() {
                if let element { return element }
            }
            return nil
        }
    }
}

extension AsyncStream where Element: Sendable {
    /// Each element transformed.
    func mapped<T: Sendable>(_ transform: @escaping @Sendable (Element) -> T) -> AsyncStream<T> {
        // The stream has one consumer, which calls next() one at a time.
        let iterator = UncheckedSendable(Box(makeAsyncIterator()))
        return AsyncStream<T> {
            await iterator.value.next().map(transform)
        }
    }
}

/// A mutable iterator shared by reference with the unfolding closure.
private final class Box<Iterator: AsyncIteratorProtocol> {
    var iterator: Iterator
    init(_ iterator: Iterator) { self.iterator = iterator }
    func next() async -> Iterator.Element? { try? await iterator.next() }
}
