import GatewayCore
import SystemSupport

/// `cast-gateway check-config FILE`.
func checkConfig(_ arguments: inout ArgumentReader) throws -> Int32 {
    let positionals = try arguments.finish(maximumPositionals: 1)
    guard let path = positionals.first else { throw UsageError("check-config needs a FILE") }
    do {
        let configuration = try GatewayConfiguration.load(path: path)
        for warning in configuration.warnings { StandardOutput.line("warning: \(warning)") }
        let device: String = switch configuration.device {
        case .address(let host, let port)?: "\(host):\(port)"
        case .name(let name)?: "name \"\(name)\""
        case .id(let id)?: "id \(id)"
        case nil: "none (set [device] host)"
        }
        StandardOutput.line("\(path): ok")
        StandardOutput.line("  device: \(device)")
        StandardOutput.line("  app: \(configuration.appID)\(configuration.allowsAndroidReceiver ? " (Android TV receivers allowed)" : "")\(configuration.credentials == nil ? "" : ", launch credentials set")")
        StandardOutput.line("  presets: \(configuration.presets.keys.sorted().map(String.init).joined(separator: " ").ifEmpty("none"))")
        let bindings = configuration.keymaps.map { "\($0.key) \($0.value.count)" }.sorted()
        StandardOutput.line("  keymaps: \(bindings.joined(separator: ", ").ifEmpty("defaults"))")
        return ExitCode.ok
    } catch {
        StandardOutput.line("error: \(error)")
        return ExitCode.config
    }
}

extension String {
    func ifEmpty(_ replacement: String) -> String { isEmpty ? replacement : self }
}
