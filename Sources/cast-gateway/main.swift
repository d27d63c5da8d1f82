// cast-gateway: TV remote to Google Cast. This file only dispatches commands.
#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

func main() async -> Int32 {
    SignalStream.ignoreBrokenPipes()
    var arguments = ArgumentReader(CommandLine.arguments.dropFirst(2))
    let command = CommandLine.arguments.dropFirst().first ?? "--help"
    let logger = Logger(label: "cast-gateway")
    do {
        switch command {
        case "--help", "-h", "help":
            StandardOutput.line(usage)
            return ExitCode.ok
        case "--version":
            StandardOutput.line("cast-gateway \(gatewayVersion)")
            return ExitCode.ok
        case "run": return try await runDaemon(&arguments)
        case "demo": return try await runDemo(&arguments)
        case "cast": return try await castCommand(&arguments)
        case "control": return try await controlCommand(&arguments)
        case "check-config": return try checkConfig(&arguments)
        case "boards": return try listBoards(&arguments)
        case "web-password": return try webPasswordCommand(&arguments)
        case "discover": return try await discoverCommand(&arguments)
        default:
            throw UsageError("unknown command '\(command)'")
        }
    } catch let error as UsageError {
        logger.error("\(error.message)\n\(usage)")
        return ExitCode.usage
    } catch {
        logger.error("\(error)")
        return ExitCode.software
    }
}

exit(await main())
