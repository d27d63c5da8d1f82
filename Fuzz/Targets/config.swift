// fuzz-options: -max_len=16384 -dict=Fuzz/dictionaries/config.dict
//
// The config parser: bytes -> ConfigFile(path:text:) -> DaemonSettings(file:board:), every section
// (what `run` and `check-config` do after reading the file), then every
// keymap action's name (logged when a key is pressed). Properties:
// - no error or warning repeats the value of a credentials line (§3);
// - a leading UTF-8 byte-order mark and CRLF line ends change nothing (§6);
// - a host that passes validation is one a resolver can take (§6).
import Configuration
import Daemon
import GatewayCore
import GatewayModel
import SystemSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: Fuzz.bytes(data, size), as: UTF8.self)
    let secrets = Secrets.inConfig(text)
    let outcome = ConfigOutcome(text)
    // A secret counts as repeated only when it comes from the input: the same
    // file with the secret replaced must then repeat the replacement (a value
    // such as "GPIO17" may also stand in the program's own help text).
    for secret in secrets where outcome.messages.contains(where: { $0.contains(secret) }) {
        let marker = String(repeating: "Q", count: max(secret.count, Secrets.minimumLength))
        let replaced = ConfigOutcome(text.replacingAll(secret, with: marker))
        for message in replaced.messages { Secrets.requireHidden([marker], in: message, "a config error or warning") }
    }
    if case .address(let host, _)? = outcome.configuration?.gateway.device.target {
        Hosts.requireValid(host, "the [device] host")
    }
    for binding in (outcome.configuration?.keymaps ?? [:]).values.flatMap(\.bindings) {
        Fuzz.use(binding.action.name)
        Fuzz.use(Action(name: binding.action.name))
    }
    if !text.hasPrefix("\u{FEFF}") {
        let withBOM = ConfigOutcome("\u{FEFF}" + text)
        Fuzz.require(withBOM.sameResult(as: outcome),
                     "a leading byte-order mark changes the result: \(withBOM.summary) instead of \(outcome.summary)")
    }
    if !text.contains("\r") {
        let crlf = ConfigOutcome(text.replacing("\n", with: "\r\n"))
        Fuzz.require(crlf.sameResult(as: outcome),
                     "CRLF line ends change the result: \(crlf.summary) instead of \(outcome.summary)")
    }
    return 0
}

private struct ConfigOutcome {
    var entries: [ConfigFile.Entry]?
    var configuration: DaemonSettings?
    var error: ConfigError?

    init(_ text: String) {
        do {
            let file = try ConfigFile(path: "gateway.conf", text: text)
            entries = file.entries
            configuration = try DaemonSettings(file: file, board: nil)
        } catch {
            self.error = error
        }
    }

    var messages: [String] { (error.map { [$0.description] } ?? []) + (configuration?.warnings ?? []) }

    func sameResult(as other: ConfigOutcome) -> Bool {
        entries == other.entries && (configuration == nil) == (other.configuration == nil) && error?.line == other.error?.line
    }

    var summary: String {
        if let error { return "error \(Fuzz.quote(error.description, limit: 160))" }
        return "\(entries?.count ?? 0) entries"
    }
}
