#if canImport(Glibc)
import Glibc
#endif
import Daemon
import Discovery
import SystemSupport

/// `cast-gateway run`: the daemon, as a group of services.
func runDaemon(_ arguments: inout ArgumentReader) async throws -> Int32 {
    let path = try arguments.option("--config") ?? DaemonSettings.defaultPath
    let logLevel = try arguments.option("--log-level").map(parseLogLevel)
    let board = try arguments.option("--board")
    _ = try arguments.finish(maximumPositionals: 0)
    let logger = Logger(label: "main")
    let settings: DaemonSettings
    do {
        settings = try DaemonSettings.load(path: path, boardOverride: board)
    } catch {
        logger.error("config error: \(error)")
        return ExitCode.config
    }
    for warning in settings.warnings { logger.warning(warning) }
    // An A/B image names its build in /etc/cast-gateway/release: that is the
    // version status, MQTT and Home Assistant show (and rollouts compare).
    let version = settings.update.installedRelease() ?? gatewayVersion
    let daemon = Daemon(path: path, settings: settings, boardOverride: board, logLevelOverride: logLevel,
                        connector: try makeTLSConnector(), authenticator: deviceAuthenticatorFactory, version: version,
                        updateReportPath: settings.update.report)
    logger.notice("cast-gateway \(version) starting with \(path)\(settings.board.map { " (board \($0.name))" } ?? "")")
    // Browses once the gateway needs it (a named target, 'devices', 'use',
    // next-device): a fixed host loads no avahi-client until then.
    let discovery = DeviceDiscovery(settings: settings.discovery, keeping: settings.keptDevices, onDemand: true)
    await daemon.loadLibraries()
    let group = daemon.serviceGroup(discovery: discovery, watchdog: systemdWatchdogInterval())
    // A service that did not stop in time has been named; the process exits without it.
    return await group.run(shutdownSignals: [SIGTERM, SIGINT]) ? ExitCode.ok : ExitCode.software
}

func parseLogLevel(_ text: String) throws -> LogLevel {
    guard let level = LogLevel(name: text) else {
        throw UsageError("--log-level takes error, warning, notice, info, debug or trace, not '\(text)'")
    }
    return level
}

/// The watchdog interval systemd asks for (`WatchdogSec=`), when meant for this process.
func systemdWatchdogInterval() -> Duration? {
    guard let text = Environment.value("WATCHDOG_USEC"), let microseconds = Int64(text), microseconds > 0 else { return nil }
    if let pid = Environment.value("WATCHDOG_PID"), pid != String(getpid()) { return nil }
    return .microseconds(microseconds)
}
