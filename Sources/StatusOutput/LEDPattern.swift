import GatewayModel

/// How one LED shows a state. Patterns are pure functions of time, so one
/// timer can drive every LED and tests can check them at any instant.
public enum LEDPattern: Sendable, Equatable {
    case off
    case on
    /// On for `on`, off for `off`, repeating.
    case blink(on: Duration, off: Duration)
    /// `count` short flashes, then a pause: error codes you can count.
    case flashCode(Int)

    static let flashOn = Duration.milliseconds(200)
    static let flashOff = Duration.milliseconds(300)
    static let codePause = Duration.milliseconds(1500)

    /// The cycle length; nil for steady patterns.
    var period: Duration? {
        switch self {
        case .off, .on: nil
        case .blink(let on, let off): on + off
        case .flashCode(let count): (LEDPattern.flashOn + LEDPattern.flashOff) * max(count, 1) + LEDPattern.codePause
        }
    }

    /// Whether the LED is lit `elapsed` after the pattern started.
    public func isLit(after elapsed: Duration) -> Bool {
        guard let period else { return self == .on }
        let phase = Duration.nanoseconds(elapsed.nanosecondsValue % period.nanosecondsValue)
        switch self {
        case .blink(let on, _):
            return phase < on
        case .flashCode(let count):
            let slot = LEDPattern.flashOn + LEDPattern.flashOff
            guard phase < slot * max(count, 1) else { return false }
            return Duration.nanoseconds(phase.nanosecondsValue % slot.nanosecondsValue) < LEDPattern.flashOn
        default:
            return false
        }
    }

    /// When (after `elapsed`) the LED next changes; nil for steady patterns.
    public func nextChange(after elapsed: Duration) -> Duration? {
        guard period != nil else { return nil }
        let now = isLit(after: elapsed)
        var probe = elapsed
        let step = Duration.milliseconds(10)
        for _ in 0..<1000 {
            probe += step
            if isLit(after: probe) != now { return probe }
        }
        return nil
    }
}

extension Duration {
    var nanosecondsValue: Int64 {
        let parts = components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }
}

/// The LED roles and what each shows.
public enum LEDRole: String, Sendable, CaseIterable {
    case power, link, play, error
}

extension LEDPattern {
    /// Error codes flashed on the `error` LED.
    public enum ErrorCode: Int, Sendable {
        case deviceUnreachable = 2
        case launchRefused = 3
        case inputMissing = 4
        /// Every item of the kiosk playlist failed (or it cannot be read); the player backs off.
        case playlistFailing = 5
        /// The receiver failed device authentication against the trust anchors.
        case notAuthenticated = 6
        /// A reload found the config file invalid; the previous settings run on.
        case configInvalid = 7
        /// A part of the gateway failed and is being restarted (or stays stopped).
        case serviceFailing = 8
    }

    /// The patterns for `state`:
    /// - power: solid while starting, a heartbeat blink while running;
    /// - link: off without a device, blinking while connecting or searching, on when connected;
    /// - play: on playing, slow blink paused, fast blink buffering, off otherwise;
    /// - error: flashes 2 (device unreachable), 3 (launch refused), 6 (the receiver failed
    ///   device authentication), 4 (remote input missing), 5 (the kiosk playlist fails) or 7 (a reload
    ///   found the config file invalid).
    public static func patterns(for state: GatewayState, starting: Bool, inputMissing: Bool) -> [LEDRole: LEDPattern] {
        var patterns: [LEDRole: LEDPattern] = [:]
        patterns[.power] = starting ? .on : .blink(on: .milliseconds(100), off: .milliseconds(1900))
        patterns[.link] = switch state.link {
        case .noDevice: .off
        case .connected: .on
        case .connecting, .reconnecting, .searching: .blink(on: .milliseconds(500), off: .milliseconds(500))
        }
        patterns[.play] = switch state.player {
        case .playing: .on
        case .paused: .blink(on: .milliseconds(1000), off: .milliseconds(1000))
        case .buffering: .blink(on: .milliseconds(150), off: .milliseconds(150))
        case .idle, .none: .off
        }
        var code: ErrorCode?
        if case .reconnecting = state.link { code = .deviceUnreachable }
        if state.lastError?.code == "launch-failed" { code = .launchRefused }
        if code == nil, state.authenticationProblem != nil { code = .notAuthenticated }
        if code == nil, inputMissing { code = .inputMissing }
        if code == nil, state.kioskProblem != nil { code = .playlistFailing }
        if code == nil, state.configProblem != nil { code = .configInvalid }
        if code == nil, !state.serviceFailures.isEmpty { code = .serviceFailing }
        patterns[.error] = code.map { .flashCode($0.rawValue) } ?? .off
        return patterns
    }
}
