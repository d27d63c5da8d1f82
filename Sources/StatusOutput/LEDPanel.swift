import CGPIODShim
import GatewayModel
import SystemSupport

/// One LED's output line: the seam between patterns and libgpiod.
public protocol LEDLine: AnyObject, Sendable {
    func set(_ lit: Bool)
    /// Switches off and gives the line back.
    func release()
}

/// A GPIO line claimed through libgpiod (v1 or v2, chosen at compile time).
public final class GPIOLEDLine: LEDLine, @unchecked Sendable {
    private let output: OpaquePointer
    public let spec: LEDLineSpec

    /// Claims the line as an output; throws a message naming the line when it is missing or busy.
    public init(_ spec: LEDLineSpec, consumer: String = "cast-gateway") throws {
        var error = [CChar](repeating: 0, count: 256)
        let claimed: OpaquePointer? = switch spec.location {
        case .name(let name):
            cg_gpio_request_output(name, nil, 0, spec.activeLow ? 1 : 0, consumer, &error, error.count)
        case .chip(let label, let offset):
            cg_gpio_request_output(nil, label, offset, spec.activeLow ? 1 : 0, consumer, &error, error.count)
        }
        guard let claimed else { throw SystemError("LED \(spec.description): \(String(nullTerminated: error))", errno: 2) }
        output = claimed
        self.spec = spec
    }

    public func set(_ lit: Bool) { _ = cg_gpio_set_value(output, lit ? 1 : 0) }

    public func release() {
        set(false)
        cg_gpio_release(output)
    }
}

/// Drives the status LEDs. One timer serves every LED, and only while some
/// LED is blinking: steady patterns cost no wake-ups at all.
public actor LEDPanel {
    private let lines: [LEDRole: any LEDLine]
    private let timeSource: any TimeSource
    private var patterns: [LEDRole: LEDPattern] = [:]
    private var started: [LEDRole: Duration] = [:]
    private var lit: [LEDRole: Bool] = [:]
    private var timer: Task<Void, Never>?
    private var released = false

    public init(lines: [LEDRole: any LEDLine], timeSource: any TimeSource = SystemTimeSource()) {
        self.lines = lines
        self.timeSource = timeSource
    }

    /// Shows new patterns; a role keeps its phase when its pattern is unchanged.
    public func show(_ newPatterns: [LEDRole: LEDPattern]) {
        guard !released else { return }
        let now = timeSource.now
        for (role, pattern) in newPatterns where patterns[role] != pattern {
            patterns[role] = pattern
            started[role] = now
        }
        refresh()
    }

    /// Whether a timer is pending (steady patterns need none).
    public var isTimerRunning: Bool { timer != nil }

    /// Switches every LED off and releases the lines (on SIGTERM / SIGINT).
    public func shutdown() {
        released = true
        timer?.cancel()
        timer = nil
        for line in lines.values { line.release() }
    }

    private func refresh() {
        let now = timeSource.now
        var nextWake: Duration?
        for (role, line) in lines {
            let pattern = patterns[role] ?? .off
            let elapsed = now - (started[role] ?? now)
            let value = pattern.isLit(after: elapsed)
            if lit[role] != value {
                lit[role] = value
                line.set(value)
            }
            if let change = pattern.nextChange(after: elapsed) {
                let wake = change - elapsed
                nextWake = min(nextWake ?? wake, wake)
            }
        }
        timer?.cancel()
        timer = nil
        guard let nextWake else { return }
        // The one blink timer, re-armed (and the old one cancelled) on every change.
        let wakeAt = now + nextWake  // fixed here: the task may start late
        timer = Task { [timeSource] in
            try? await timeSource.sleep(until: wakeAt)
            guard !Task.isCancelled else { return }
            self.timerFired()
        }
    }

    private func timerFired() {
        timer = nil
        refresh()
    }
}
