import Fleet
import GatewayCore
import GatewayModel
import SystemSupport

/// MQTT commands run as console lines, through the same interpreter as the
/// serial console: one command language everywhere.
public struct FleetCommands: FleetCommandHandler {
    let interpreter: CommandInterpreter

    public init(interpreter: CommandInterpreter) {
        self.interpreter = interpreter
    }

    public func run(_ line: String) async -> FleetReply {
        let lines = await interpreter.run(line)
        return FleetReply(ok: !lines.contains { $0.hasPrefix("error:") }, lines: lines)
    }

    /// Which commands wait for the Cast link when it is down (see `FleetCommandKind`).
    public func kind(of line: String) -> FleetCommandKind {
        // A line that does not parse is answered at once with its usage error.
        guard let command = try? ConsoleCommand(parsing: line.trimmingSpaces()) else { return .local }
        if command.isReadOnly { return .query }
        return FleetCommands.needsReceiver(command) ? .needsReceiver : .local
    }

    static func needsReceiver(_ command: ConsoleCommand) -> Bool {
        switch command {
        case .action(let action):
            switch action {
            case .selectNextDevice, .tvPowerOn, .tvStandby, .none: false
            default: true
            }
        case .subtitleTrack, .cast, .queue, .launch, .key, .checkout: true
        case .playlist(let request):
            switch request {
            case .start, .next, .previous: true
            case .show, .reload, .stop: false
            }
        case .help, .status, .version, .devices, .use, .keys, .json, .credentials, .logLevel, .quit: false
        }
    }
}
