import SystemSupport

/// `schedule = 07:00-23:00, 23:30-01:00`: local-time windows in which the
/// kiosk plays. A window whose end is not after its start wraps past
/// midnight; `00:00-24:00` is the whole day. No windows: always open.
public struct Schedule: Sendable, Equatable {
    /// One window, in minutes since local midnight.
    public struct Window: Sendable, Equatable, CustomStringConvertible {
        /// 0...1439.
        public var start: Int
        /// 1...1440; not after `start` means the window wraps past midnight.
        public var end: Int

        public init(start: Int, end: Int) {
            self.start = start
            self.end = end
        }

        public func contains(secondOfDay second: Int) -> Bool {
            let startSecond = start * 60, endSecond = end * 60
            if startSecond < endSecond { return second >= startSecond && second < endSecond }
            return second >= startSecond || second < endSecond
        }

        public var description: String { "\(Schedule.format(start))-\(Schedule.format(end))" }
    }

    public static let secondsPerDay = 86_400
    public var windows: [Window]

    public init(windows: [Window] = []) {
        self.windows = windows
    }

    /// Whether the kiosk may play at `second` (0..<86400) of the local day.
    public func isOpen(atSecondOfDay second: Int) -> Bool {
        windows.isEmpty || windows.contains { $0.contains(secondOfDay: second) }
    }

    /// Seconds from `second` until `isOpen` next changes; nil when it never does.
    public func secondsUntilChange(fromSecondOfDay second: Int) -> Int? {
        guard !windows.isEmpty else { return nil }
        let open = isOpen(atSecondOfDay: second)
        // Boundaries are whole minutes: checking each one ahead within a day finds the next change.
        var boundaries = Set<Int>()
        for window in windows {
            boundaries.insert(window.start * 60 % Schedule.secondsPerDay)
            boundaries.insert(window.end * 60 % Schedule.secondsPerDay)
        }
        let ahead = boundaries.map { boundary in
            let delta = (boundary - second + Schedule.secondsPerDay) % Schedule.secondsPerDay
            return delta == 0 ? Schedule.secondsPerDay : delta
        }.sorted()
        for delta in ahead where isOpen(atSecondOfDay: (second + delta) % Schedule.secondsPerDay) != open {
            return delta
        }
        return nil
    }

    /// Parses `07:00-23:00[, HH:MM-HH:MM...]`; nil with a reason when malformed.
    public static func parse(_ text: String) -> Result<Schedule, ScheduleError> {
        var windows: [Window] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.trimmingSpaces()
            let ends = trimmed.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 2, let start = minutes(ends[0].trimmingSpaces()), let end = minutes(ends[1].trimmingSpaces()) else {
                return .failure(ScheduleError(message: "'\(trimmed)' is not a window HH:MM-HH:MM (24-hour local time, e.g. 07:00-23:00)"))
            }
            guard start < 1440, end > 0 else {
                return .failure(ScheduleError(message: "'\(trimmed)': a window starts before 24:00 and ends after 00:00"))
            }
            guard start != end else {
                return .failure(ScheduleError(message: "'\(trimmed)' is empty; use 00:00-24:00 for the whole day"))
            }
            windows.append(Window(start: start, end: end))
        }
        guard !windows.isEmpty else { return .failure(ScheduleError(message: "no window given (e.g. 07:00-23:00)")) }
        return .success(Schedule(windows: windows))
    }

    /// `7:05`, `07:05`, `24:00` → minutes since midnight.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let hours = Int(parts[0]), let minutes = Int(parts[1]), minutes < 60 else { return nil }
        let total = hours * 60 + minutes
        return total <= 1440 ? total : nil
    }

    static func format(_ minutes: Int) -> String {
        let hours = minutes / 60, rest = minutes % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
}

/// Why a `schedule` value was refused.
public struct ScheduleError: Error, Sendable, Equatable {
    public var message: String
}
