import Daemon
import GatewayCore
import Kiosk
import SystemSupport
import WebInterface

/// `cast-gateway check-config FILE [--board NAME]`.
func checkConfig(_ arguments: inout ArgumentReader) throws -> Int32 {
    let board = try arguments.option("--board")
    let positionals = try arguments.finish(maximumPositionals: 1)
    guard let path = positionals.first else { throw UsageError("check-config needs a FILE") }
    do {
        let (settings, playlist) = try ConfigCheck.run(path: path, boardOverride: board)
        for warning in settings.warnings { StandardOutput.line("warning: \(warning)") }
        let cast = settings.gateway.cast
        let device: String = switch settings.gateway.device.target {
        case .address(let host, let port)?: "\(host):\(port)"
        case .name(let name)?: "name \"\(name)\""
        case .id(let id)?: "id \(id)"
        case nil: "none (set [device] host)"
        }
        var kioskLine: String?
        if let playlist {
            var kiosk = playlist.isEmpty ? "  kiosk: welcome app \(settings.kiosk.appID ?? "?")" : "  kiosk: \(playlist.count) items from \(playlist.origin)"
            kiosk += ", start \(settings.kiosk.start.rawValue)"
            if !settings.kiosk.schedule.windows.isEmpty {
                kiosk += ", schedule \(settings.kiosk.schedule.windows.map(\.description).joined(separator: ", "))"
            }
            kioskLine = kiosk
        }
        StandardOutput.line("\(path): ok")
        if let board = settings.board { StandardOutput.line("  board: \(board.name) (\(board.model))") }
        StandardOutput.line("  device: \(device)")
        var app = "  app: \(cast.appID)"
        if cast.allowsAndroidReceiver { app += " (Android TV receivers allowed)" }
        if cast.launchCredentials != nil { app += ", launch credentials set" }
        if cast.mediaCredentials != nil { app += ", media credentials set" }
        StandardOutput.line(app)
        StandardOutput.line("  presets: \(settings.gateway.presets.presets.keys.sorted().map(String.init).joined(separator: " ").ifEmpty("none"))")
        let bindings = settings.keymaps.values.filter { !$0.bindings.isEmpty }.map { "\($0.source.rawValue) \($0.bindings.count)" }.sorted()
        StandardOutput.line("  keymaps: \(bindings.joined(separator: ", ").ifEmpty("defaults"))")
        StandardOutput.line("  console: \(settings.console.device.map { "\($0) at \(settings.console.baud) baud" } ?? "off")")
        if let kioskLine { StandardOutput.line(kioskLine) }
        StandardOutput.line("  web: \(webLine(settings.web))")
        return ExitCode.ok
    } catch {
        StandardOutput.line("error: \(error)")
        return ExitCode.config
    }
}

/// What check-config says of `[web]`: where it listens, or why there is none.
func webLine(_ web: WebSection) -> String {
    guard let server = web.server else {
        return web.disabledReason.map { "off: \($0)" } ?? "off (no [web] section)"
    }
    let listen = "\(server.scheme)://\(server.listen)/"
    // A missing file is a box without a web interface, not a broken one.
    guard FileSystem.exists(server.passwordFile) else {
        return "off: \(WebInterfaceService.noPasswordFile(server.passwordFile))"
    }
    do {
        let text = try FileSystem.readText(server.passwordFile, limit: 4096)
        _ = try PasswordHash(parsing: text, origin: server.passwordFile)
    } catch let error as WebError {
        return "\(listen), but it will not start: \(error.message)"
    } catch {
        return "\(listen), but it will not start: cannot read \(server.passwordFile) (\(error)); create it with: "
            + "cast-gateway web-password \(server.passwordFile)"
    }
    if let mode = FileSystem.permissions(of: server.passwordFile), mode & 0o077 != 0 {
        return "\(listen) (password hash in \(server.passwordFile); warning: readable by others, mode \(String(mode, radix: 8)); run: chmod 600 \(server.passwordFile))"
    }
    return "\(listen) (password hash in \(server.passwordFile))"
}

/// `cast-gateway boards`: the board profiles this installation has.
func listBoards(_ arguments: inout ArgumentReader) throws -> Int32 {
    _ = try arguments.finish(maximumPositionals: 0)
    let boards = BoardProfile.all()
    guard !boards.isEmpty else {
        StandardOutput.line("no board profiles in \(BoardProfile.searchPath.joined(separator: " or "))")
        return ExitCode.unavailable
    }
    var broken = false
    for (name, profile) in boards {
        switch profile {
        case .success(let profile):
            let facts = profile.facts
            StandardOutput.line("\(name.padding(to: 12))\(facts.architecture.padding(to: 7))\(facts.model)")
        case .failure(let error):
            broken = true
            StandardOutput.line("\(name.padding(to: 12))error: \(error)")
        }
    }
    return broken ? ExitCode.config : ExitCode.ok
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }

    /// Left-aligned in a column of `width`.
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
