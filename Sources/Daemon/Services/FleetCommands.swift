import Fleet
import GatewayCore

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
}
