#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import MediaServer
import SystemSupport

/// `cast-gateway-bench serve --root DIR [--port N]`: a small host process
/// for bench/media-server.sh. Prints its RSS and its anonymous (heap, stack)
/// RSS before the media server starts (`rss_before_kb=N anon_before_kb=N`),
/// then `listening 127.0.0.1 PORT`, and serves DIR as root 0 until SIGTERM or
/// SIGINT. The baseline is taken once the process has what any daemon has
/// (the signal watch, a Dispatch queue in use), so it counts the server alone.
func serveMedia(_ arguments: [String]) async -> Int32 {
    var reader = ArgumentReader(arguments)
    do {
        guard let root = try reader.option("--root") else { throw UsageError("usage: cast-gateway-bench serve --root DIR [--port N]") }
        let port = try reader.intOption("--port", in: 0...65535) ?? 0
        _ = try reader.finish(maximumPositionals: 0)
        let signals = SignalStream.watch([SIGINT, SIGTERM])
        await withCheckedContinuation { continuation in DispatchQueue(label: "warm-up").async { continuation.resume() } }
        StandardOutput.line("rss_before_kb=\(residentKilobytes()) anon_before_kb=\(anonymousKilobytes())")
        let server = try MediaServer(settings: MediaServerSettings(roots: [root], port: UInt16(port)))
        let address = try await server.listen(on: "127.0.0.1")
        StandardOutput.line("listening 127.0.0.1 \(address.port)")
        for await _ in signals { break }
        await server.stop()
        return 0
    } catch {
        Logger(label: "bench").error("\(error)")
        return 1
    }
}

/// RssAnon from /proc/self/status: heap and stacks, not mapped code.
func anonymousKilobytes() -> Int {
    guard let status = try? FileSystem.readText("/proc/self/status") else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("RssAnon:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}
