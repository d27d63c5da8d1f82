import Commands
import Fleet
import GatewayCore
import GatewayModel
import Interpreter
import SystemSupport

/// MQTT's front end to the command language: each payload's command line is
/// parsed once, when it arrives, into the same `GatewayCommand` the serial
/// console uses, run by the same interpreter, and its typed result rendered
/// as MQTT replies it (`ok`, and the console's lines).
public struct FleetCommands: FleetCommandHandler {
    let interpreter: CommandInterpreter

    public init(interpreter: CommandInterpreter) {
        self.interpreter = interpreter
    }

    public func prepare(_ line: String) -> FleetCommand {
        let command: GatewayCommand
        do {
            command = try GatewayCommand(parsing: line.trimmingSpaces())
        } catch {
            // A line that does not parse is answered, in order, with its usage error.
            let reply = FleetCommands.reply(.failure(CommandError(error)))
            return FleetCommand(kind: .local) { reply }
        }
        let interpreter = self.interpreter
        return FleetCommand(kind: FleetCommands.kind(of: command)) {
            let pending = await interpreter.start(command)
            return { FleetCommands.reply(await pending.value()) }
        }
    }

    /// Which commands wait for the Cast link when it is down (see `FleetCommandKind`).
    public func kind(of line: String) -> FleetCommandKind {
        prepare(line).kind
    }

    static func kind(of command: GatewayCommand) -> FleetCommandKind {
        if command.isReadOnly { return .query }
        return command.needsReceiver ? .needsReceiver : .local
    }

    /// MQTT's reply: `ok` only when nothing failed, not even a part.
    static func reply(_ result: CommandResult) -> FleetReply {
        FleetReply(ok: result.succeededEntirely, lines: result.textLines)
    }
}
