#if canImport(Glibc)
import Glibc
#endif
import Daemon
import GatewayCore
import Interpreter
import ServiceLifecycle
import Synchronization
import GatewayModel
import ReceiverSimulator
import SystemSupport
import TLS

/// `cast-gateway demo`: a simulated TV on loopback, the real gateway
/// connected to it over TLS, and the console's commands on this terminal.
/// It ends at `quit` or at the end of its input, so it can be scripted:
/// `printf 'cast URL\nstatus\n' | cast-gateway demo`.
func runDemo(_ arguments: inout ArgumentReader) async throws -> Int32 {
    let logLevel = try arguments.option("--log-level")
    _ = try arguments.finish(maximumPositionals: 0)

    let simulator = try ReceiverSimulator(configuration: ReceiverSimulator.Configuration(friendlyName: "Demo TV"))
    let listener = try TLSListener(host: "127.0.0.1", port: 0, context: try TLSContext.server(commonName: "demo-tv"))
    var settings = DaemonSettings()
    settings.gateway.device = DeviceSettings(target: .address(host: "127.0.0.1", port: listener.port))
    settings.gateway.presets = PresetSettings([
        1: .init(url: "https://media.example/big-buck-bunny.mp4", title: "Big Buck Bunny"),
        2: .init(url: "https://media.example/sintel.mp4", title: "Sintel"),
    ])
    // Failures are shown once, as 'error:' replies; the log says only what is worse.
    let daemon = Daemon(path: "(demo)", settings: settings, logLevelOverride: try logLevel.map(parseLogLevel) ?? .error,
                        connector: try makeTLSConnector(), version: gatewayVersion)
    StandardOutput.line("""
        cast-gateway demo: a simulated TV is listening on 127.0.0.1:\(listener.port) (TLS).
        Try: cast https://media.example/movie.mp4 My Movie | pause | toggle | seek +30 | vol 40 |
             subs next | queue https://media.example/next.mp4 | next | status | help | quit
        Presets 1 and 2 play with 'preset 1'. Press remote keys with 'key NAME':
             key KEY_1 | key KEY_PLAYPAUSE | key KEY_VOLUMEUP | key PLAY (CEC) | keys
        """)
    let prompt = DemoPrompt(gateway: daemon.gateway, interpreter: daemon.interpreter(for: .demo))
    let group = ServiceGroup(services: [
        SimulatorService(simulator: simulator, listener: listener),
        CastSessionService(gateway: daemon.gateway, discovery: nil),
        daemon.remote,
        prompt,
    ])
    prompt.onEnd = { group.shutdown() }
    // The group starts the prompt only once the session service has set the gateway up.
    let stopped = await group.run(shutdownSignals: [SIGTERM, SIGINT])
    if prompt.tvAnswered.withLock({ $0 }) == false { return ExitCode.unavailable }
    return stopped ? ExitCode.ok : ExitCode.software
}

/// The demo's simulated TV, serving TLS connections on loopback.
private struct SimulatorService: Service {
    let name = "simulator"
    let simulator: ReceiverSimulator
    let listener: TLSListener

    func run() async throws {
        for await connection in listener.connections { await simulator.serve(connection) }
        listener.close()
        await simulator.dropAllConnections()
    }
}

/// The demo's prompt: waits for its own simulator (milliseconds on loopback,
/// longer on a busy machine) before it reads a command, prints status changes
/// and redraws the prompt after them, and ends the demo at `quit` or end of
/// input. It is never restarted: once the input has ended, the demo is over.
private final class DemoPrompt: Service, @unchecked Sendable {
    let name = "prompt"
    var restartsAfterFailure: Bool { false }
    let gateway: Gateway
    let interpreter: CommandInterpreter
    /// Set before the group runs; called once, when the input ends.
    var onEnd: @Sendable () -> Void = {}
    /// Whether the simulated TV answered (nil: not known yet).
    let tvAnswered = Mutex<Bool?>(nil)
    private let interactive = isatty(0) == 1 && isatty(1) == 1
    /// A command is running: its reply brings the prompt back.
    private let busy = Mutex(false)
    private static let prompt = "cast-gateway> "

    init(gateway: Gateway, interpreter: CommandInterpreter) {
        self.gateway = gateway
        self.interpreter = interpreter
    }

    func run() async throws {
        do {
            try await gateway.waitUntilConnected(timeout: .seconds(60))
            tvAnswered.withLock { $0 = true }
        } catch {
            tvAnswered.withLock { $0 = false }
            StandardOutput.line("error: the demo's simulated TV did not answer: \(error)")
            onEnd()
            // The demo ends with the group; returning now would read as a failure.
            return await waitUntilCancelled()
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var announcer = StatusAnnouncer()
                for await state in self.gateway.states() {
                    guard let line = announcer.announcement(for: state, now: self.gateway.timeSource.now.seconds) else { continue }
                    // On a terminal: clear the prompt, print, and draw it again unless a command is running.
                    if self.interactive {
                        StandardOutput.write("\r\u{1B}[K" + line + "\n" + (self.busy.withLock { $0 } ? "" : DemoPrompt.prompt))
                    } else {
                        StandardOutput.line(line)
                    }
                }
            }
            group.addTask {
                StandardOutput.write(DemoPrompt.prompt)
                for await line in LineReader.lines(fd: 0) {
                    let words = line.split(separator: " ")
                    if words.first == "quit" || words.first == "exit" { break }
                    self.busy.withLock { $0 = true }
                    let replies = await self.interpreter.run(line)
                    self.busy.withLock { $0 = false }
                    for reply in replies { StandardOutput.line(reply.escapingControlCharacters()) }
                    StandardOutput.write(DemoPrompt.prompt)
                }
                StandardOutput.line("")
                self.onEnd()
            }
            await group.next()
            group.cancelAll()
        }
        await waitUntilCancelled()
    }
}
