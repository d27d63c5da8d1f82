#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates in IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`), the only
/// form a server sends; the obsolete forms a client may send are not
/// understood, and a condition with a date that does not parse is ignored.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats seconds since the epoch (UTC).
    public static func format(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let day = days[Int(min(max(parts.tm_wday, 0), 6))]
        let month = months[Int(min(max(parts.tm_mon, 0), 11))]
        return "\(day), \(pad(parts.tm_mday, 2)) \(month) \(pad(parts.tm_year + 1900, 4)) "
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)) GMT"
    }

    /// Parses an IMF-fixdate; nil for anything else.
    public static func parse(_ text: String) -> Int64? {
        let fields = text.trimmingSpaces.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","),
              days.contains(String(fields[0].dropLast())), fields[5] == "GMT",
              let day = number(fields[1], digits: 2), let monthIndex = months.firstIndex(of: String(fields[2])),
              let year = number(fields[3], digits: 4) else { return nil }
        let clock = fields[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let hour = number(clock[0], digits: 2), let minute = number(clock[1], digits: 2),
              let second = number(clock[2], digits: 2) else { return nil }
        guard (1...31).contains(day), year >= 1970, hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Int64(timegm(&parts))
    }

    private static func number(_ text: Substring, digits: Int) -> Int? {
        guard text.utf8.count == digits, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }
}
