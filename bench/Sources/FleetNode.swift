#if canImport(Glibc)
import Glibc
#endif
import Daemon
import Fleet
import GatewayCore
import GatewayModel
import Interpreter
import SystemSupport
import TLS

// `cast-gateway-bench fleet-node`: one room of the fleet, until the daemon
// wires [mqtt] itself. A FleetService whose commands run through the
// console's CommandInterpreter on a real Gateway (Cast over TLS to
// --device), or, without --device, one that only publishes and answers
// "no device". Used by bench/fleet/run.sh (N of them) and by FleetTests
// (kill -9 -> the broker publishes the Last Will).

struct NoDeviceHandler: FleetCommandHandler {
    func prepare(_ line: String) -> FleetCommand {
        FleetCommand { FleetReply(ok: false, lines: ["error: this fleet-node has no Cast device (--device HOST:PORT)"]) }
    }
}

func fleetNode(_ arguments: inout ArgumentReader) async throws {
    guard let broker = try arguments.option("--broker"), let room = try arguments.option("--room") else {
        throw UsageError("usage: cast-gateway-bench fleet-node --broker mqtt://HOST[:PORT] --room NAME [--groups A,B] [--device HOST:PORT] [--ha-discovery]")
    }
    let groups = try arguments.option("--groups") ?? ""
    let device = try arguments.option("--device")
    let discovery = arguments.flag("--ha-discovery")
    _ = try arguments.finish(maximumPositionals: 0)
    let settings: FleetSettings
    do {
        settings = try FleetSettings.parse([(key: "broker", value: broker), (key: "room", value: room), (key: "groups", value: groups),
                                            (key: "ha-discovery", value: discovery ? "true" : "false")])
    } catch {
        throw UsageError("\(error)")
    }

    let time = SystemTimeSource()
    let extras = FleetStatusExtras(version: "bench", startedAt: time.now)
    let handler: any FleetCommandHandler
    let states: @Sendable () -> AsyncStream<GatewayState>
    var gateway: Gateway?
    if let device {
        guard let (host, port) = DeviceSettings.parseHostPort(device) else { throw UsageError("bad --device \(device)") }
        let context = try TLSContext.client()
        let started = Gateway(settings: GatewaySettings(device: DeviceSettings(target: .address(host: host, port: port))), connector: { host, port in
            try await TLSConnection.connect(host: host, port: port, context: context)
        }, version: "bench")
        await started.start()
        gateway = started
        handler = FleetCommands(interpreter: CommandInterpreter(gateway: started, version: "bench"))
        states = { started.states() }
    } else {
        let idle = StateBroadcaster(GatewayState())
        handler = NoDeviceHandler()
        states = { idle.subscribe() }
    }
    let service = FleetService(settings: settings, handler: handler, states: states, extras: extras, timeSource: time,
                               onStatusChange: { status in StandardOutput.line("fleet-node \(room) \(status.line)") })
    let running = Task { try await service.run() }
    for await _ in SignalStream.watch([SIGINT, SIGTERM]) { break }
    running.cancel()
    _ = try? await running.value
    await gateway?.stop()
}
