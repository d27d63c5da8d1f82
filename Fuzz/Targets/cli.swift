// fuzz-options: -max_len=4096 -dict=Fuzz/dictionaries/cli.dict
//
// The command line: bytes split on NUL into argv -> ArgumentReader, read
// with the options each command reads (the command functions live in the
// cast-gateway and cast-receiver-sim executables, which a fuzzer cannot
// import, so their option reads are repeated here in the same order), then
// GatewayCommand.parseSeek/parseVolume and the action's name for `control`,
// DeviceSettings.parseHostPort for `--device`, LogLevel(name:) for
// `--log-level`. Properties:
// - no usage error repeats the value of --credentials (§3);
// - a --device host that parses is one a resolver can take (§6).
// Not reached: what the commands do after parsing (connect, cast, ...).
import Commands
import GatewayCore
import GatewayModel
import SystemSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCLI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let argv = Fuzz.split(Fuzz.bytes(data, size), on: [0]).map { String(decoding: $0, as: UTF8.self) }
    let secrets = Secrets.inArguments(argv)
    do {
        try parse(argv)
    } catch let error as UsageError {
        Secrets.requireHidden(secrets, in: error.message, "the usage error")
    } catch {
        Fuzz.require(false, "argument parsing threw a non-usage error: \(error)")
    }
    return 0
}

private func parse(_ argv: [String]) throws {
    var arguments = ArgumentReader(argv.dropFirst())
    switch argv.first ?? "--help" {
    case "run":
        _ = try arguments.option("--config")
        try logLevel(try arguments.option("--log-level"))
        _ = try arguments.finish(maximumPositionals: 0)
    case "demo":
        try logLevel(try arguments.option("--log-level"))
        _ = try arguments.finish(maximumPositionals: 0)
    case "check-config":
        _ = try arguments.finish(maximumPositionals: 1)
    case "discover":
        _ = try arguments.intOption("--timeout", in: 1...600)
        _ = arguments.flag("--json")
        try logLevel(try arguments.option("--log-level"))
        _ = try arguments.finish(maximumPositionals: 0)
    case "cast":
        for name in ["--title", "--content-type", "--subtitles", "--app-id"] { _ = try arguments.option(name) }
        _ = arguments.flag("--android-receiver")
        _ = try arguments.option("--credentials")
        _ = try arguments.option("--credentials-type")
        var deviceArguments = arguments
        let positionals = try finishKeeping(&arguments)
        guard positionals.count == 1, positionals[0].contains("://") else { throw UsageError("cast needs exactly one URL") }
        try device(&deviceArguments)
    case "control":
        var deviceArguments = arguments
        let positionals = try finishKeeping(&arguments)
        switch (positionals.first, positionals.count) {
        case ("seek", 2):
            guard let action = GatewayCommand.parseSeek(positionals[1]) else { throw UsageError("seek takes SECONDS, +S, -S or mm:ss") }
            Fuzz.use(action.name)  // "ok: \(action.name)" and log lines
        case ("volume", 2):
            guard let action = GatewayCommand.parseVolume(positionals[1]) else { throw UsageError("volume takes 0-100, +N or -N") }
            Fuzz.use(action.name)
        default:
            break
        }
        try device(&deviceArguments)
    case "cast-receiver-sim":
        _ = arguments.flag("--help") || arguments.flag("-h")
        _ = try arguments.intOption("--port", in: 0...65535)
        for name in ["--bind", "--name", "--id", "--log", "--state"] { _ = try arguments.option(name) }
        try logLevel(try arguments.option("--log-level"))
        _ = arguments.flag("--fixed-volume")
        _ = try arguments.intOption("--ping-interval", in: 1...3600)
        _ = try arguments.intOption("--drop-after", in: 1...Int(Int32.max))
        _ = arguments.flag("--ignore-pings")
        _ = try arguments.option("--launch-error")
        _ = arguments.flag("--fail-load")
        _ = try arguments.intOption("--delay-ms", in: 0...600_000)
        _ = arguments.flag("--byte-by-byte")
        _ = try arguments.option("--model")
        _ = arguments.flag("--group")
        _ = try arguments.option("--publish")
        _ = try arguments.finish(maximumPositionals: 0)
    default:
        throw UsageError("unknown command")
    }
}

/// OneShotCommands.swift `finishKeeping`: leaves --device and --log-level for later.
private func finishKeeping(_ arguments: inout ArgumentReader) throws -> [String] {
    for name in ["--device", "--log-level"] { _ = try arguments.option(name) }
    return try arguments.finish(maximumPositionals: 8)
}

/// OneShotCommands.swift `withDevice`: --device HOST[:PORT], --log-level.
private func device(_ arguments: inout ArgumentReader) throws {
    guard let device = try arguments.option("--device") else { throw UsageError("--device HOST[:PORT] is required") }
    guard let (host, _) = DeviceSettings.parseHostPort(device) else { throw UsageError("--device must be HOST or HOST:PORT") }
    Hosts.requireValid(host, "the --device host")
    try logLevel(try arguments.option("--log-level"))
}

private func logLevel(_ name: String?) throws {
    guard let name else { return }
    guard LogLevel(name: name) != nil else { throw UsageError("unknown log level") }
}
