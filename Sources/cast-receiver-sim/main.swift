// cast-receiver-sim: a Cast receiver in software, over real TLS.
#if canImport(Glibc)
import Glibc
#endif
import DeviceAuth
import CurlMediaProbe
import Discovery
import ReceiverSimulator
import SystemSupport
import TLS

let usage = """
    usage: cast-receiver-sim [--port N] [--bind ADDRESS] [--name NAME] [--id HEX]
                             [--log FILE] [--state FILE] [--log-level LEVEL] [--fixed-volume]
                             [--publish NAME] [--model MODEL] [--group]
                             [--ping-interval SECONDS] [--default-duration SECONDS]
                             [--drop-after N] [--ignore-pings] [--launch-error REASON[:COUNT]]
                             [--fail-load] [--delay-ms N] [--byte-by-byte] [--fetch-media]
                             [--tls-cert FILE --tls-key FILE]
                             [--device-auth DIR] [--device-auth-fault FAULT]

    A Cast v2 receiver (platform, receiver and media namespaces) for tests,
    demos and bench work. Listens with TLS on ADDRESS:N (default 127.0.0.1:8009;
    port 0 picks a free port). Prints "listening HOST PORT FINGERPRINT" on
    standard output when ready, then reads control commands there:

    """ + ReceiverSimulator.controlHelp + """


    --log FILE appends one JSON object per received message (the payload text
    exactly as received, under "data"). --state FILE keeps the running app and
    player across restarts, like a real receiver whose network link was cut.
    --default-duration SECONDS is the duration assumed for BUFFERED media
    loaded without one (default 600), so that it can be seeked as on a real
    receiver, which reads it from the file. LIVE streams stay unseekable.
    --publish NAME announces the simulator over mDNS (avahi-daemon) as a
    _googlecast._tcp device with that friendly name (--group: as a Cast group).

    --tls-cert/--tls-key serve this PEM certificate and key instead of a fresh
    self-signed one. --device-auth DIR answers device-auth challenges with
    DIR/device.key, DIR/device.pem and DIR/intermediates.pem (without it,
    challenges get AuthError INTERNAL_ERROR). --device-auth-fault answers them
    wrongly: wrong-signature, other-certificate (as behind a man in the
    middle) or replay (one old answer to another nonce).

    --fetch-media makes LOAD fetch the media as a real receiver does (HEAD, then
    a Range GET of the first 64 KiB): an unreachable URL or HTTP error, or a
    missing Access-Control-Allow-Origin when the LOAD has text tracks, fails the
    LOAD with LOAD_FAILED and detailedErrorCode 104 (MEDIA_SRC_NOT_SUPPORTED);
    an MP4 plays for the duration in its mvhd box. Without it the LOAD is
    trusted and the media is never fetched.
    """

/// mDNS settings from the command line.
struct PublishSettings {
    var name: String
    var model: String
    var group: Bool
}

/// Everything the command line sets.
struct SimulatorOptions {
    var configuration: ReceiverSimulator.Configuration
    var host: String
    var port: UInt16
    var publish: PublishSettings?
    var tlsFiles: (certificate: String, key: String)?
    var deviceAuthDirectory: String?
}

func parseOptions() throws -> SimulatorOptions? {
    var arguments = ArgumentReader(CommandLine.arguments.dropFirst())
    if arguments.flag("--help") || arguments.flag("-h") {
        StandardOutput.line(usage)
        return nil
    }
    var configuration = ReceiverSimulator.Configuration()
    let port = try arguments.intOption("--port", in: 0...65535) ?? 8009
    let host = try arguments.option("--bind") ?? "127.0.0.1"
    if let name = try arguments.option("--name") { configuration.friendlyName = name }
    if let id = try arguments.option("--id") { configuration.deviceID = id }
    configuration.logPath = try arguments.option("--log")
    configuration.statePath = try arguments.option("--state")
    if let level = try arguments.option("--log-level") {
        guard let parsed = LogLevel(name: level) else { throw UsageError("--log-level takes error, warning, notice, info, debug or trace") }
        Logger.level = parsed
    }
    if arguments.flag("--fixed-volume") { configuration.volumeControlType = "fixed" }
    if let seconds = try arguments.intOption("--ping-interval", in: 1...3600) { configuration.pingInterval = .seconds(seconds) }
    if let text = try arguments.option("--default-duration") {
        let range = ReceiverSimulator.Configuration.defaultDurationRange
        guard let seconds = Double(text), range.contains(seconds) else {
            throw UsageError("--default-duration takes seconds from \(Int(range.lowerBound)) to \(Int(range.upperBound)), not '\(text)'")
        }
        configuration.defaultDuration = seconds
    }
    configuration.faults.dropAfterMessages = try arguments.intOption("--drop-after", in: 1...Int(Int32.max))
    configuration.faults.ignorePings = arguments.flag("--ignore-pings")
    if let text = try arguments.option("--launch-error") {
        guard let parsed = SimulatorFaults.parseLaunchError(text) else { throw UsageError("--launch-error takes REASON or REASON:COUNT") }
        configuration.faults.launchErrorReason = parsed.reason
        configuration.faults.launchErrorCount = parsed.count
    }
    configuration.faults.failLoads = arguments.flag("--fail-load")
    if let delay = try arguments.intOption("--delay-ms", in: 0...600_000) { configuration.faults.replyDelay = .milliseconds(delay) }
    configuration.faults.writeByteByByte = arguments.flag("--byte-by-byte")
    let tlsCertificate = try arguments.option("--tls-cert")
    let tlsKey = try arguments.option("--tls-key")
    guard (tlsCertificate == nil) == (tlsKey == nil) else { throw UsageError("--tls-cert and --tls-key go together") }
    let deviceAuthDirectory = try arguments.option("--device-auth")
    if let fault = try arguments.option("--device-auth-fault") {
        guard let parsed = DeviceAuthFault(rawValue: fault) else {
            throw UsageError("--device-auth-fault takes \(DeviceAuthFault.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        configuration.faults.deviceAuthFault = parsed
    }
    if arguments.flag("--fetch-media") { configuration.mediaProbe = CurlMediaProbe() }
    let model = try arguments.option("--model") ?? "Cast Receiver Simulator"
    let group = arguments.flag("--group")
    var publish: PublishSettings?
    if let name = try arguments.option("--publish") {
        configuration.friendlyName = name
        publish = PublishSettings(name: name, model: model, group: group)
    }
    _ = try arguments.finish(maximumPositionals: 0)
    var options = SimulatorOptions(configuration: configuration, host: host, port: UInt16(port), publish: publish)
    if let tlsCertificate, let tlsKey { options.tlsFiles = (tlsCertificate, tlsKey) }
    options.deviceAuthDirectory = deviceAuthDirectory
    return options
}

func runSimulator() async -> Int32 {
    SignalStream.ignoreBrokenPipes()
    let parsed: SimulatorOptions?
    do {
        parsed = try parseOptions()
    } catch {
        Logger(label: "cast-receiver-sim").error("\(error)\n\(usage)")
        return ExitCode.usage
    }
    guard let options = parsed else { return ExitCode.ok }
    var (configuration, host, port) = (options.configuration, options.host, options.port)
    let logger = Logger(label: "cast-receiver-sim")
    let simulator: ReceiverSimulator
    let listener: TLSListener
    do {
        let context = if let files = options.tlsFiles {
            try TLSContext.server(certificateFile: files.certificate, keyFile: files.key)
        } else {
            try TLSContext.server(commonName: configuration.deviceID)
        }
        if let directory = options.deviceAuthDirectory {
            configuration.deviceAuth = SimulatorDeviceAuth(signer: try DeviceCredentials.load(directory: directory),
                                                           tlsCertificate: context.certificate ?? [])
        }
        simulator = try ReceiverSimulator(configuration: configuration)
        await simulator.start()
        listener = try TLSListener(host: host, port: port, context: context)
        StandardOutput.line("listening \(host) \(listener.port) \(context.certificateFingerprint ?? "-")")
    } catch {
        logger.error("cannot start: \(error)")
        return ExitCode.unavailable
    }
    var publisher: AvahiPublisher?
    if let settings = options.publish {
        let capabilities = settings.group ? 4 | 32 | 2048 : 4101
        let txt = ["id=\(configuration.deviceID)", "cd=\(configuration.deviceID.prefix(16).uppercased())", "rm=",
                   "ve=05", "md=\(settings.model)", "ic=/setup/icon.png", "fn=\(settings.name)", "ca=\(capabilities)",
                   "st=0", "bs=FA8FCA000000", "nf=1", "rs="]
        do {
            publisher = try AvahiPublisher(name: settings.name, port: listener.port, txt: txt)
            publisher?.start()
        } catch {
            logger.error("cannot publish over mDNS: \(error)")
        }
    }
    let accepting = Task {
        for await connection in listener.connections { await simulator.serve(connection) }
    }
    let controlling = Task {
        for await line in LineReader.lines(fd: 0) {
            let answer = await simulator.control(line)
            if !answer.isEmpty { StandardOutput.line(answer) }
        }
    }
    for await signal in SignalStream.watch([SIGINT, SIGTERM]) {
        logger.info("received signal \(signal), shutting down")
        break
    }
    controlling.cancel()
    publisher?.stop()
    listener.close()
    accepting.cancel()
    await simulator.dropAllConnections()
    return ExitCode.ok
}

exit(await runSimulator())
