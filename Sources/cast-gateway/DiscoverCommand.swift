import Discovery
import GatewayCore
import GatewayModel
import SystemSupport

/// `cast-gateway discover [--timeout SECONDS] [--json]`
func discoverCommand(_ arguments: inout ArgumentReader) async throws -> Int32 {
    let seconds = try arguments.intOption("--timeout", in: 1...600) ?? 3
    let json = arguments.flag("--json")
    if let level = try arguments.option("--log-level") { Logger.level = try parseLogLevel(level) } else { Logger.level = .error }
    _ = try arguments.finish(maximumPositionals: 0)
    let discovery = DeviceDiscovery()
    // Browse for the timeout, unless discovery already knows it cannot work
    // (no D-Bus, no avahi-daemon): then say so at once.
    let snapshot: DiscoverySnapshot = await withTaskGroup(of: DiscoverySnapshot?.self) { group in
        group.addTask {
            try? await discovery.run()
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return discovery.current
        }
        group.addTask {
            for await update in discovery.snapshots() where update.problem != nil && update.devices.isEmpty { return update }
            return nil
        }
        var result = discovery.current
        while let value = await group.next() {
            if let value {
                result = value
                break
            }
        }
        group.cancelAll()
        return result
    }
    if let problem = snapshot.problem, snapshot.devices.isEmpty {
        Logger(label: "discover").error("mDNS discovery is not available: \(problem). Start avahi-daemon (systemctl start avahi-daemon), or give the device's address with --device / [device] host")
        return ExitCode.unavailable
    }
    if json {
        StandardOutput.line(DeviceList.json(snapshot.devices))
    } else {
        for line in DeviceList.table(snapshot.devices) { StandardOutput.line(line) }
    }
    return ExitCode.ok
}
