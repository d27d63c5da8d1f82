// cast-gateway-bench: in-process measurements for bench/run.sh.
//   latency  --device HOST:PORT [--count N]   command issued -> frame written (p50/p99)
//   scenario --device HOST:PORT               connect, launch, load, pause: time and RSS
//   json [--members N] [--count RUNS]          parse time of an N-member object vs an N-element array
//   fleet-node --broker URL --room R [--device HOST:PORT] [--groups A,B]   one MQTT fleet room (FleetNode.swift)
//   serve    --root DIR [--port N]            the media server alone (bench/media-server.sh)
//   cec-latency --device HOST:PORT [--count N]   libcec key callback -> frame written, on the virtual board (bench/cec-latency.sh)
#if canImport(Glibc)
import Glibc
#endif
import CastClient
import Commands
import Dispatch
import GatewayCore
import GatewayModel
import RemoteInput
import Synchronization
import SystemSupport
import TLS

func residentKilobytes() -> Int {
    guard let status = try? FileSystem.readText("/proc/self/status") else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func makeGateway(device: String, measuring: CurrentStream) throws -> Gateway {
    guard let (host, port) = DeviceSettings.parseHostPort(device) else { throw UsageError("bad --device \(device)") }
    let settings = GatewaySettings(device: DeviceSettings(target: .address(host: host, port: port)))
    let context = try TLSContext.client()
    return Gateway(settings: settings, connector: { host, port in
        let stream = MeasuringStream(try await TLSConnection.connect(host: host, port: port, context: context))
        measuring.value = stream
        return stream
    })
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func latency(device: String, count: Int) async throws {
    let measuring = CurrentStream()
    let gateway = try makeGateway(device: device, measuring: measuring)
    await gateway.start()
    try await gateway.waitUntilConnected(timeout: .seconds(10))
    try await gateway.cast(CastRequest(url: "http://media.test/bench.mp4", title: "Bench"))
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for index in 0..<count {
        let issued = ContinuousClock.now
        try await gateway.perform(index % 2 == 0 ? .pause : .play)
        guard let stream = measuring.value, let written = stream.firstCompletion(after: issued) else { continue }
        samples.append((written - issued).seconds * 1e6)
    }
    samples.sort()
    StandardOutput.line("latency commands=\(samples.count) p50_us=\(Int(percentile(samples, 0.5))) p99_us=\(Int(percentile(samples, 0.99))) max_us=\(Int(samples.last ?? 0))")
    await gateway.stop()
}

func scenario(device: String) async throws {
    let start = ContinuousClock.now
    let measuring = CurrentStream()
    let gateway = try makeGateway(device: device, measuring: measuring)
    await gateway.start()
    try await gateway.waitUntilConnected(timeout: .seconds(10))
    try await gateway.cast(CastRequest(url: "http://media.test/bench.mp4", title: "Bench"))
    try await gateway.perform(.pause)
    let elapsed = ContinuousClock.now - start
    StandardOutput.line("scenario seconds=\(elapsed.seconds) rss_kb=\(residentKilobytes())")
    await gateway.stop()
}

/// Sends `SIMULATE` lines to lircd over its socket, on its own queue:
/// the blocking socket calls never run on the cooperative pool.
final class LircdInjector: @unchecked Sendable {
    private let fd: Int32
    private let queue = DispatchQueue(label: "bench.lircd-injector")

    init(socketPath: String) throws {
        fd = try UnixSocket.connectStream(to: socketPath)
    }

    func simulate(_ line: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [fd] in
                let bytes = Array("SIMULATE \(line)\n".utf8)
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                var reply = [UInt8](repeating: 0, count: 512)
                _ = read(fd, &reply, reply.count)  // BEGIN/SUCCESS/END
                continuation.resume()
            }
        }
    }
}

/// lircd line read -> Cast frame written, through the daemon's own input path
/// (LircSource -> RemoteControl -> ActionScheduler -> Gateway -> TLS).
/// A gateway connected to `device` and playing, its writes measured, and the scheduler keys go through.
func playingGateway(device: String) async throws -> (Gateway, CurrentStream, ActionScheduler) {
    let measuring = CurrentStream()
    let gateway = try makeGateway(device: device, measuring: measuring)
    await gateway.start()
    try await gateway.waitUntilConnected(timeout: .seconds(10))
    try await gateway.cast(CastRequest(url: "http://media.test/bench.mp4", title: "Bench"))
    return (gateway, measuring, ActionScheduler { action in try? await gateway.perform(action) })
}

/// `NAME events=N p50_us=… p99_us=… max_us=…`, the line bench scripts read.
func printLatencies(_ name: String, _ unsorted: [Double]) {
    let samples = unsorted.sorted()
    StandardOutput.line("\(name) events=\(samples.count) p50_us=\(Int(percentile(samples, 0.5))) p99_us=\(Int(percentile(samples, 0.99))) max_us=\(Int(samples.last ?? 0))")
}

/// From a key's arrival to the first frame written after it, once the
/// command finished: waits sleeping, not spinning.
func microsecondsToFrame(since received: ContinuousClock.Instant, measuring: CurrentStream, scheduler: ActionScheduler) async throws -> Double {
    var written: ContinuousClock.Instant?
    while written == nil {
        written = measuring.value?.firstCompletion(after: received)
        if written == nil { try await Task.sleep(for: .microseconds(100)) }
    }
    while !(await scheduler.isIdle) { try await Task.sleep(for: .microseconds(100)) }
    return ((written ?? received) - received).seconds * 1e6
}

func inputLatency(device: String, lircdSocket: String, count: Int) async throws {
    let (gateway, measuring, scheduler) = try await playingGateway(device: device)
    let remote = RemoteControl(keymaps: [.lirc: Keymap.standard(for: .lirc)], scheduler: scheduler) { _, _ in }
    let connected = AsyncStream<Void>.makeStream()
    let (events, sink) = InputEvent.makeStream()
    let lirc = LircSource(socketPath: lircdSocket, sink: sink).service { problem in
        if problem == nil { connected.continuation.yield() }
    }
    let lircTask = Task { try? await lirc.run() }
    var connectedEvents = connected.stream.makeAsyncIterator()
    _ = await connectedEvents.next()  // keys sent before lircd knows us would be lost
    let injector = try LircdInjector(socketPath: lircdSocket)
    var samples: [Double] = []
    var iterator = events.makeAsyncIterator()
    for index in 0..<count {
        await injector.simulate(index % 2 == 0 ? "0000000000000077 00 KEY_PAUSE devinput-64" : "00000000000000cf 00 KEY_PLAY devinput-64")
        guard let event = await iterator.next(), let received = event.receivedAt else { break }
        await remote.handle(event)
        samples.append(try await microsecondsToFrame(since: received, measuring: measuring, scheduler: scheduler))
    }
    printLatencies("input", samples)
    lircTask.cancel()
    await gateway.stop()
}

/// CEC key (libcec's callback, on the virtual board: the TV's keys come from
/// `cec-ctl` on vivid's other adapter) -> Cast frame written.
func cecLatency(device: String, count: Int) async throws {
    let (gateway, measuring, scheduler) = try await playingGateway(device: device)
    let remote = RemoteControl(keymaps: [.cec: Keymap.standard(for: .cec)], scheduler: scheduler) { _, _ in }
    let (events, sink) = InputEvent.makeStream()
    let cec = CecSource(settings: CecSettings(role: .playback, osdName: "Bench"), sink: sink).service { problem in
        // The script starts sending keys once it reads this line.
        if problem == nil { StandardOutput.line("cec open") } else { StandardOutput.line("cec problem: \(problem ?? "")") }
    }
    let cecTask = Task { try? await cec.run() }
    var samples: [Double] = []
    var iterator = events.makeAsyncIterator()
    while samples.count < count {
        guard let event = await iterator.next(), let received = event.receivedAt else { break }
        await remote.handle(event)
        samples.append(try await microsecondsToFrame(since: received, measuring: measuring, scheduler: scheduler))
    }
    printLatencies("cec", samples)
    cecTask.cancel()
    await gateway.stop()
}

func benchMain() async -> Int32 {
    Logger.level = .warning
    if CommandLine.arguments.dropFirst().first == "serve" { return await serveMedia(Array(CommandLine.arguments.dropFirst(2))) }
    var arguments = ArgumentReader(CommandLine.arguments.dropFirst(2))
    do {
        if CommandLine.arguments.dropFirst().first == "json" {
            let members = try arguments.intOption("--members", in: 1...1_000_000) ?? 7_800
            try JSONParseBench.run(members: members, runs: try arguments.intOption("--count", in: 1...10_000) ?? 50)
            return 0
        }
        if CommandLine.arguments.dropFirst().first == "fleet-node" {
            try await fleetNode(&arguments)
            return 0
        }
        guard let device = try arguments.option("--device") else { throw UsageError("--device HOST:PORT is required") }
        let count = try arguments.intOption("--count", in: 1...1_000_000) ?? 10_000
        let lircdSocketOption = try arguments.option("--lircd-socket")
        switch CommandLine.arguments.dropFirst().first {
        case "latency": try await latency(device: device, count: count)
        case "scenario": try await scenario(device: device)
        case "input-latency":
            guard let socket = lircdSocketOption else { throw UsageError("--lircd-socket PATH is required") }
            try await inputLatency(device: device, lircdSocket: socket, count: count)
        case "cec-latency": try await cecLatency(device: device, count: count)
        default: throw UsageError("usage: cast-gateway-bench latency|scenario|input-latency|cec-latency --device HOST:PORT [--count N] [--lircd-socket PATH] | json [--members N] [--count RUNS] | fleet-node --broker URL --room R")
        }
        return 0
    } catch {
        Logger(label: "bench").error("\(error)")
        return 1
    }
}

exit(await benchMain())
