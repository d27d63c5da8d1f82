import Discovery
import GatewayCore
import SystemSupport

/// `cast-gateway discover [--timeout SECONDS] [--json]`
func discoverCommand(_ arguments: inout ArgumentReader) async throws -> Int32 {
    let seconds = try arguments.intOption("--timeout", in: 1...600) ?? 3
    let json = arguments.flag("--json")
    if let level = try arguments.option("--log-level") { Logger.level = try parseLogLevel(level) } else { Logger.level = .error }
    _ = try arguments.finish(maximumPositionals: 0)
    let discovery = try DeviceDiscovery()
    discovery.start()
    try await Task.sleep(for: .seconds(seconds))
    let snapshot = discovery.current
    discovery.stop()
    if json {
        StandardOutput.line(DeviceList.json(snapshot.devices))
    } else {
        for line in DeviceList.table(snapshot.devices) { StandardOutput.line(line) }
    }
    if let problem = snapshot.problem, snapshot.devices.isEmpty {
        Logger(label: "discover").error("discovery is not working: \(problem)")
        return ExitCode.unavailable
    }
    return ExitCode.ok
}
