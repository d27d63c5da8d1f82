// fuzz-options: -max_len=8192 -dict=Fuzz/dictionaries/console.dict
//
// The serial console's input side: bytes -> LineEditor.feed -> each line,
// normalised as SerialConsole does -> GatewayCommand(parsing:) -> the action's
// name (logged, e.g. "seek=… failed"); every word also through
// GatewayCommand.parseSeek/parseVolume and Action(name:). Properties:
// - the editor is not sensitive to how input is split into reads;
// - the argument of a `creds` line is never echoed or redrawn (§3). Checked
//   exactly, keystroke by keystroke, not by looking for the secret in the
//   output (a secret may look like its own mask: `creds ****`): a character
//   added to a secret line echoes as `*` (or nothing, mid-UTF-8), every other
//   keystroke echoes only the editor's fixed strings, and the redrawn line
//   shows `*` for every character after the first space.
// Not reached: SerialConsole's tty I/O and its json-mode reply object (a
// private method; see Fuzz/README.md).
import Commands
import GatewayCore
import GatewayModel
import StatusOutput

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConsole(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Fuzz.bytes(data, size)

    // All at once, as one read.
    var whole = LineEditor()
    let (wholeEcho, wholeEvents) = whole.feed(bytes)

    // One byte per read, remembering what was echoed while each line was typed.
    var editor = LineEditor()
    var events: [LineEditor.Event] = []
    var echo = ""
    var lineEcho = ""
    for byte in bytes {
        let before = editor.buffer
        let (output, completed) = editor.feed([byte])
        checkEcho(output, of: byte, before: before, after: editor.buffer)
        echo += output
        lineEcho += output
        for event in completed {
            events.append(event)
            if case .line(let line) = event { check(line: line) }
            lineEcho = ""
        }
    }
    Fuzz.require(events == wholeEvents, "LineEditor events depend on how the input is split into reads")
    Fuzz.require(echo == wholeEcho, "LineEditor echo depends on how the input is split into reads")
    // The half-typed line is redrawn after every status push.
    check(partial: String(decoding: editor.buffer, as: UTF8.self), display: editor.display)

    // json mode: no echo at all, same lines.
    var silent = LineEditor()
    silent.echo = false
    let (silentEcho, silentEvents) = silent.feed(bytes)
    Fuzz.require(silentEcho.isEmpty && silentEvents == wholeEvents, "LineEditor with echo off echoes or reads differently")
    return 0
}

/// SerialConsole's normalisation of a submitted line.
private func normalised(_ line: String) -> String {
    line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
}

private func check(line: String) {
    let command = normalised(line)
    Fuzz.use(Action(name: command).map(\.name))
    for word in command.split(separator: " ") {
        Fuzz.use(GatewayCommand.parseSeek(String(word))?.name)
        Fuzz.use(GatewayCommand.parseVolume(String(word))?.name)
    }
    guard let parsed = try? GatewayCommand(parsing: command) else { return }
    switch parsed {
    case .action(let action):
        Fuzz.use(Action(name: action.name))
    case .credentials(let value?):
        // The editor masks what SecretCommand calls a secret; the console must not take more than that as one.
        Fuzz.require(SecretCommand.isSecret(line), "the console takes \(Fuzz.quote(SecretCommand.redacted(line), limit: 40))"
            + " as credentials, but the editor would not mask it (\(value.count) characters)")
    default:
        break
    }
}

/// What a keystroke that adds no character may echo: the editor's fixed strings.
/// One that adds a character to a secret line (`creds x…`) echoes only `*`.
private let fixedEchoes: Set<String> = ["", "\r\n", "\u{08} \u{08}", "\r\u{1B}[K" + LineEditor.prompt, "^C\r\n"]

private func checkEcho(_ output: String, of byte: UInt8, before: [UInt8], after: [UInt8]) {
    let appended = after.count == before.count + 1 && after.last == byte && after.starts(with: before)
    guard appended else {
        Fuzz.require(fixedEchoes.contains(output), "a keystroke 0x\(String(byte, radix: 16)) that added nothing echoed \(Fuzz.quote(output))")
        return
    }
    // Every character of a `creds` argument is added while the line so far is a secret.
    let typed = String(decoding: after, as: UTF8.self)
    guard SecretCommand.isSecret(typed) else { return }
    Fuzz.require(output.isEmpty || output == "*",
                 "the console echoed \(Fuzz.quote(output)) for a character of a creds argument (\(SecretCommand.redacted(typed)))")
}

/// The redrawn line of a secret shows every character after the first space as `*`.
private func check(partial: String, display: String) {
    guard SecretCommand.isSecret(partial), let space = partial.firstIndex(of: " ") else { return }
    let hidden = partial[partial.index(after: space)...].count
    let shown = partial.distance(from: partial.startIndex, to: space) + 1
    Fuzz.require(display.count == shown + hidden && display.dropFirst(shown).allSatisfy { $0 == "*" },
                 "the console's redrawn input line \(Fuzz.quote(display, limit: 40)) shows part of the creds argument"
                     + " (\(hidden) characters)")
}
