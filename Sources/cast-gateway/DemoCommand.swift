#if canImport(Glibc)
import Glibc
#endif
import GatewayCore
import GatewayModel
import ReceiverSimulator
import SystemSupport
import TLS

/// `cast-gateway demo`: a simulated TV on loopback, the real gateway
/// connected to it over TLS, and the console's commands on this terminal.
func runDemo(_ arguments: inout ArgumentReader) async throws -> Int32 {
    let logLevel = try arguments.option("--log-level")
    _ = try arguments.finish(maximumPositionals: 0)
    Logger.level = try logLevel.map(parseLogLevel) ?? .error  // failures are already shown as 'error:' replies

    let simulator = try ReceiverSimulator(configuration: ReceiverSimulator.Configuration(friendlyName: "Demo TV"))
    let listener = try TLSListener(host: "127.0.0.1", port: 0, context: try TLSContext.server(commonName: "demo-tv"))
    let accepting = Task {
        for await connection in listener.connections { await simulator.serve(connection) }
    }
    var configuration = GatewayConfiguration()
    configuration.device = .address(host: "127.0.0.1", port: listener.port)
    configuration.presets = [
        1: .init(url: "https://media.example/big-buck-bunny.mp4", title: "Big Buck Bunny"),
        2: .init(url: "https://media.example/sintel.mp4", title: "Sintel"),
    ]
    let gateway = Gateway(configuration: configuration, connector: try makeTLSConnector(), version: gatewayVersion)
    let interpreter = CommandInterpreter(gateway: gateway, version: gatewayVersion)
    _ = await makeRemoteControl(for: gateway, configuration: configuration)
    StandardOutput.line("""
        cast-gateway demo: a simulated TV is listening on 127.0.0.1:\(listener.port) (TLS).
        Try: cast https://media.example/movie.mp4 My Movie | pause | toggle | seek +30 | vol 40 |
             subs next | queue https://media.example/next.mp4 | next | status | help | quit
        Presets 1 and 2 play with 'preset 1'. Press remote keys with 'key NAME':
             key KEY_1 | key KEY_PLAYPAUSE | key KEY_VOLUMEUP | key PLAY (CEC) | keys
        """)
    await gateway.start()
    let printer = Task {
        var announcer = StatusAnnouncer()
        for await state in gateway.states() {
            if let line = announcer.announcement(for: state, now: gateway.timeSource.now.seconds) {
                StandardOutput.line(line)
            }
        }
    }
    StandardOutput.write("cast-gateway> ")
    for await line in LineReader.lines(fd: 0) {
        let words = line.split(separator: " ")
        if words.first == "quit" || words.first == "exit" { break }
        let replies: [String]
        if words.count == 2, words[0] == "preset", let number = Int(words[1]) {
            replies = await interpreter.run(.action(.preset(number)))
        } else {
            replies = await interpreter.run(line)
        }
        for reply in replies { StandardOutput.line(reply) }
        StandardOutput.write("cast-gateway> ")
    }
    StandardOutput.line("")
    printer.cancel()
    await gateway.stop()
    listener.close()
    accepting.cancel()
    await simulator.dropAllConnections()
    return ExitCode.ok
}
