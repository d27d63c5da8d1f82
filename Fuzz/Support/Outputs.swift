// Every output the daemon derives from one GatewayState: the status line
// (log, console, `status`), its JSON (console json mode), the summary key,
// the sd_notify STATUS text and the LED patterns. Rendered the way
// Sources/cast-gateway/RunCommand.swift does (that target cannot be imported).
import CastProtocol
import GatewayCore
import GatewayModel
import JSON
import StatusOutput
import Synchronization

enum Outputs {
    /// Renders everything for `state` at monotonic time `now` (seconds) and
    /// checks the properties every output promises.
    static func renderAll(_ state: GatewayState, now: Double, announcer: inout StatusAnnouncer) {
        let line = StatusLine.render(state, now: now)
        Fuzz.trace("status line at \(now): \(line)")
        Fuzz.requirePlainLine(line, "the status line")
        let json = StatusLine.json(state, now: now)
        checkStatusJSON(json)
        let key = StatusLine.summaryKey(state)
        Fuzz.use(key)
        if let announced = announcer.announcement(for: state, now: now) {
            // RunCommand: log it, send it to systemd, push it to the console.
            let notify = "STATUS=\(announced)"
            // A newline would start a second sd_notify assignment (READY=1, ...).
            Fuzz.requirePlainLine(notify, "the sd_notify STATUS message")
            let push = SerialConsole.Push(text: announced, json: json)
            Fuzz.requirePlainLine(push.text, "the console push")
        }
        for starting in [false, true] {
            for inputMissing in [false, true] {
                let patterns = LEDPattern.patterns(for: state, starting: starting, inputMissing: inputMissing)
                Fuzz.require(patterns.count == LEDRole.allCases.count, "every LED has a pattern")
                for pattern in patterns.values {
                    for elapsed in [Duration.zero, .milliseconds(250), .seconds(7), .seconds(86_400)] {
                        Fuzz.use(pattern.isLit(after: elapsed))
                        Fuzz.use(pattern.nextChange(after: elapsed))
                    }
                }
            }
        }
    }

    /// The console's json-mode status object: valid JSON on one line, numbers
    /// shown clamped (issue 8 §1: volume 0-100 %, positions finite and >= 0).
    static func checkStatusJSON(_ json: String) {
        Fuzz.requirePlainLine(json, "the status JSON")
        guard Fuzz.propertiesEnabled else { return }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: json)
        } catch {
            Fuzz.require(false, "the status JSON does not parse (\(error)): \(Fuzz.quote(json))")
            return
        }
        Fuzz.require(value["type"]?.stringValue == "status", "the status JSON has type status: \(Fuzz.quote(json))")
        if let volume = value["volume"] {
            let level = volume.doubleValue ?? -1
            Fuzz.require((0...100).contains(level), "the status JSON volume is 0...100, not \(volume): \(Fuzz.quote(json))")
        }
        for name in ["position", "duration"] {
            if let number = value[name] {
                let seconds = number.doubleValue ?? -1
                Fuzz.require(seconds.isFinite && seconds >= 0, "the status JSON \(name) is finite and >= 0, not \(number)")
            }
        }
    }
}

/// An LED line that only remembers its value (the seam LEDPanel drives).
final class RecordingLED: LEDLine, Sendable {
    private let lit = Mutex(false)
    func set(_ lit: Bool) { self.lit.withLock { $0 = lit } }
    func release() { set(false) }
}
