import CastClient
import CastProtocol
import Commands
import GatewayCore
import GatewayModel
import SystemSupport

/// Builds a gateway for one device given on the command line, connects,
/// runs `body`, and maps failures to exit codes (69 when unreachable).
private func withDevice(_ arguments: inout ArgumentReader, configure: (inout CastSettings) throws -> Void,
                        _ body: (Gateway) async throws -> String) async throws -> Int32 {
    guard let device = try arguments.option("--device") else { throw UsageError("--device HOST[:PORT] is required") }
    guard let (host, port) = DeviceSettings.parseHostPort(device) else {
        throw UsageError("--device must be HOST or HOST:PORT, not '\(device)'")
    }
    if let level = try arguments.option("--log-level") { Logger.level = try parseLogLevel(level) } else { Logger.level = .warning }
    var settings = GatewaySettings(device: DeviceSettings(target: .address(host: host, port: port)))
    try configure(&settings.cast)
    let gateway = Gateway(settings: settings, connector: try makeTLSConnector(), version: gatewayVersion,
                          authenticator: deviceAuthenticatorFactory)
    await gateway.start()
    do {
        try await gateway.waitUntilConnected(timeout: .seconds(10))
        try await gateway.waitUntilMediaKnown(timeout: .seconds(5))
    } catch {
        StandardOutput.line("error: \(device) is unavailable: \(error)")
        await gateway.stop()
        return ExitCode.unavailable
    }
    do {
        let message = try await body(gateway)
        StandardOutput.line(message)
        await gateway.stop()
        return ExitCode.ok
    } catch let error as CastError where error.code == .notConnected || error.code == .disconnected {
        StandardOutput.line("error: \(error)")
        await gateway.stop()
        return ExitCode.unavailable
    } catch {
        StandardOutput.line("error: \(error)")
        await gateway.stop()
        return ExitCode.failure
    }
}

/// `cast-gateway cast URL --device HOST[:PORT] ...`
func castCommand(_ arguments: inout ArgumentReader) async throws -> Int32 {
    let title = try arguments.option("--title")
    let contentType = try arguments.option("--content-type")
    let subtitles = try arguments.option("--subtitles")
    let appID = try arguments.option("--app-id")
    let android = arguments.flag("--android-receiver")
    let credentials = try secret(&arguments, "--credentials")
    let credentialsType = try arguments.option("--credentials-type")
    let mediaCredentials = try secret(&arguments, "--media-credentials")
    let mediaCredentialsType = try arguments.option("--media-credentials-type")
    var deviceArguments = arguments
    let positionals = try arguments.finishKeeping(["--device", "--log-level"])
    guard positionals.count == 1, let url = positionals.first else { throw UsageError("cast needs exactly one URL") }
    guard url.contains("://") else { throw UsageError("'\(url.escapingControlCharacters(maximumLength: 80))' is not a URL (expected scheme://...)") }
    if credentialsType != nil, credentials == nil { throw UsageError("--credentials-type needs --credentials or --credentials-file") }
    if mediaCredentialsType != nil, mediaCredentials == nil {
        throw UsageError("--media-credentials-type needs --media-credentials or --media-credentials-file")
    }
    if let appID, CastSettings.validAppID(appID) == nil { throw UsageError("--app-id must be a receiver app id such as CC1AD845") }
    var request = CastRequest(url: url, title: title)
    request.contentType = contentType
    request.subtitlesURL = subtitles
    do {
        try request.checkSize()
    } catch {
        throw UsageError(error.message)
    }
    return try await withDevice(&deviceArguments, configure: { cast in
        if let appID { cast.appID = appID }
        cast.allowsAndroidReceiver = android
        cast.launchCredentials = credentials.map { LaunchCredentials(credentials: $0, credentialsType: credentialsType) }
        cast.mediaCredentials = mediaCredentials.map { LaunchCredentials(credentials: $0, credentialsType: mediaCredentialsType) }
    }) { gateway in
        try await gateway.cast(request)
        let state = await gateway.state
        return "ok: \(state.player.rawValue.lowercased()) \"\(state.title ?? url)\" on \(state.deviceAddress)"
    }
}

/// `cast-gateway control ACTION --device HOST[:PORT]`
func controlCommand(_ arguments: inout ArgumentReader) async throws -> Int32 {
    var deviceArguments = arguments
    let positionals = try arguments.finishKeeping(["--device", "--log-level"])
    guard let verb = positionals.first else { throw UsageError("control needs an action: play, pause, toggle, stop, next, prev, seek, volume, mute") }
    let action: Action
    switch (verb, positionals.count) {
    case ("play", 1): action = .play
    case ("pause", 1): action = .pause
    case ("toggle", 1): action = .toggle
    case ("stop", 1): action = .stop
    case ("next", 1): action = .next
    case ("prev", 1), ("previous", 1): action = .previous
    case ("mute", 1): action = .toggleMute
    case ("seek", 1), ("volume", 1):
        throw UsageError(verb == "seek" ? "seek needs a position: SECONDS, +S, -S or mm:ss (at most a year)" : "volume needs a level: 0-100, +N or -N")
    case ("seek", 2):
        guard let parsed = GatewayCommand.parseSeek(positionals[1]) else { throw UsageError("seek takes SECONDS, +S, -S or mm:ss (at most a year)") }
        action = parsed
    case ("volume", 2):
        guard let parsed = GatewayCommand.parseVolume(positionals[1]) else { throw UsageError("volume takes 0-100, +N or -N") }
        action = parsed
    default:
        throw UsageError("unknown control '\(positionals.joined(separator: " "))'; use play, pause, toggle, stop, next, prev, seek SECONDS, volume 0-100 or mute")
    }
    return try await withDevice(&deviceArguments, configure: { _ in }) { gateway in
        try await gateway.perform(action)
        return "ok: \(action.name)"
    }
}

/// A secret given as `--NAME VALUE` (visible to every local user in
/// /proc/PID/cmdline while the command runs) or, better, as `--NAME-file
/// FILE`, where FILE `-` is standard input. A trailing newline is dropped.
private func secret(_ arguments: inout ArgumentReader, _ name: String) throws -> String? {
    let inline = try arguments.option(name)
    let file = try arguments.option(name + "-file")
    switch (inline, file) {
    case (let value?, nil): return value
    case (nil, nil): return nil
    case (_?, _?): throw UsageError("give \(name) or \(name)-file, not both")
    case (nil, let path?):
        let text: String
        do {
            text = path == "-" ? try FileSystem.readText("/dev/stdin", limit: 64 * 1024) : try FileSystem.readText(path, limit: 64 * 1024)
        } catch {
            throw UsageError("\(name)-file: \(error)")
        }
        var value = Substring(text)
        while value.last == "\n" || value.last == "\r" { value = value.dropLast() }
        guard !value.isEmpty else { throw UsageError("\(name)-file \(path) is empty") }
        return String(value)
    }
}

extension ArgumentReader {
    /// Like `finish`, but leaves the named options for a later reader.
    mutating func finishKeeping(_ names: [String]) throws -> [String] {
        for name in names { _ = try option(name) }
        return try finish(maximumPositionals: 8)
    }
}
