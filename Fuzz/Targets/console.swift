// fuzz-options: -max_len=8192 -dict=Fuzz/dictionaries/console.dict
//
// The serial console's input side: bytes -> LineEditor.feed -> each line,
// normalised as SerialConsole does -> ConsoleCommand(parsing:) -> the action's
// name (logged, e.g. "seek=… failed"); every word also through
// ConsoleCommand.parseSeek/parseVolume and Action(name:). Properties:
// - the editor is not sensitive to how input is split into reads;
// - the argument of a `creds` line is never echoed or redrawn (§3).
// Not reached: SerialConsole's tty I/O and its json-mode reply object (a
// private method; see Fuzz/README.md).
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
        let (output, completed) = editor.feed([byte])
        echo += output
        lineEcho += output
        for event in completed {
            events.append(event)
            if case .line(let line) = event { check(line: line, echoed: lineEcho) }
            lineEcho = ""
        }
    }
    Fuzz.require(events == wholeEvents, "LineEditor events depend on how the input is split into reads")
    Fuzz.require(echo == wholeEcho, "LineEditor echo depends on how the input is split into reads")
    // The half-typed line is redrawn after every status push.
    check(partial: String(decoding: editor.buffer, as: UTF8.self), display: editor.display, echoed: lineEcho)

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

private func check(line: String, echoed: String) {
    let command = normalised(line)
    Fuzz.use(Action(name: command).map(\.name))
    for word in command.split(separator: " ") {
        Fuzz.use(ConsoleCommand.parseSeek(String(word))?.name)
        Fuzz.use(ConsoleCommand.parseVolume(String(word))?.name)
    }
    guard let parsed = try? ConsoleCommand(parsing: command) else { return }
    switch parsed {
    case .action(let action):
        Fuzz.use(Action(name: action.name))
    case .credentials(let value?):
        if Secrets.isWorthChecking(value) {
            Secrets.requireHidden([value], in: echoed, "the console echo of \(Fuzz.quote(command, limit: 40))")
        }
    default:
        break
    }
}

private func check(partial: String, display: String, echoed: String) {
    guard case .credentials(let value?)? = try? ConsoleCommand(parsing: normalised(partial)), Secrets.isWorthChecking(value) else { return }
    Secrets.requireHidden([value], in: display, "the console's redrawn input line")
    Secrets.requireHidden([value], in: echoed, "the console echo of a half-typed creds line")
}
