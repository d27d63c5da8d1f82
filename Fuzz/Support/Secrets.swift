// Where a secret can hide in an input, so a target can check that no output
// repeats it (issue 8 §3). Short values are skipped: they occur in ordinary
// messages by chance.
enum Secrets {
    static let minimumLength = 6

    /// Values of `credentials` lines in a config text, whatever separator
    /// the line uses (`=`, `:`, a space), quotes removed.
    static func inConfig(_ text: String) -> [String] {
        var values: [String] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" || $0 == "\u{FEFF}" })
            guard let separator = trimmed.firstIndex(where: { $0 == "=" || $0 == ":" || $0 == " " || $0 == "\t" }) else { continue }
            let key = trimmed[..<separator].lowercased()
            guard key.hasPrefix("credentials") || key.hasPrefix("creds"), !key.contains("type") else { continue }
            var value = trimmed[trimmed.index(after: separator)...].drop(while: { " \t=:\"".contains($0) })
            while let last = value.last, " \t\"".contains(last) { value = value.dropLast() }
            values.append(String(value))
        }
        // A value that also stands elsewhere in the file (a section name, another
        // key) may be repeated as that: only secrets seen once are looked for.
        return values.filter { isWorthChecking($0) && occurrences(of: $0, in: text) == 1 }
    }

    static func occurrences(of needle: String, in haystack: String) -> Int {
        var count = 0
        var rest = haystack[...]
        while let range = rest.firstRange(of: needle) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }

    /// Values given to `--credentials` (as `--credentials=VALUE` or `--credentials VALUE`).
    static func inArguments(_ arguments: [String]) -> [String] {
        var values: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument.hasPrefix("--credentials=") {
                values.append(String(argument.dropFirst("--credentials=".count)))
            } else if argument == "--credentials", index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                // (An option after `--credentials` is not its value: the reader refuses it as one.)
                values.append(arguments[index + 1])
            }
        }
        // Only secrets that appear nowhere else on the command line are looked for.
        let all = arguments.joined(separator: "\u{0}")
        return values.filter { isWorthChecking($0) && occurrences(of: $0, in: all) == 1 }
    }

    /// Long enough to be looked for, and not all `*`: a secret made of the
    /// mask character looks the same masked (the echo shows stars by design).
    static func isWorthChecking(_ value: String) -> Bool {
        value.count >= minimumLength && !"credentials-type".contains(value) && !value.allSatisfy { $0 == "*" }
    }

    /// Fails when `output` repeats any of `secrets`.
    static func requireHidden(_ secrets: [String], in output: String, _ what: String) {
        for secret in secrets where output.contains(secret) {
            Fuzz.require(false, "\(what) repeats the secret \(Fuzz.quote(secret)): \(Fuzz.quote(output))")
        }
    }
}
