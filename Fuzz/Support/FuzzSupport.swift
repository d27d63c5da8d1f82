// Shared by every fuzz target (compiled into each one by Fuzz/run.sh).
//
// A target crashes on a trap, a sanitizer report, or a violated property
// (`Fuzz.require`). Properties state what the README promises for untrusted
// input; CAST_FUZZ_PROPERTIES=off leaves only crashes and sanitizer reports.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

enum Fuzz {
    static let propertiesEnabled: Bool = {
        guard let value = getenv("CAST_FUZZ_PROPERTIES") else { return true }
        return String(cString: value) != "off"
    }()

    /// CAST_FUZZ_TRACE=1 prints what a target reaches (to check a new seed).
    static let tracing: Bool = getenv("CAST_FUZZ_TRACE") != nil

    static func trace(_ text: @autoclosure () -> String) {
        guard tracing else { return }
        let line = "trace: \(quote(text(), limit: 400))\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    /// Stops the run with `property` when `condition` does not hold.
    static func require(_ condition: @autoclosure () -> Bool, _ property: @autoclosure () -> String) {
        guard propertiesEnabled, !condition() else { return }
        let message = "cast-gateway fuzz: property violated: \(property())\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        abort()
    }

    /// Shows `text` in a finding without painting the terminal: control
    /// characters escaped, at most `limit` characters.
    static func quote(_ text: String, limit: Int = 300) -> String {
        var result = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                result += "…(\(text.unicodeScalars.count) scalars)"
                break
            }
            count += 1
            if isControl(scalar) || scalar == "\"" || scalar == "\\" {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// C0, DEL and C1: what a terminal or a log reader interprets.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    static func firstControl(in text: String) -> Unicode.Scalar? {
        text.unicodeScalars.first(where: isControl)
    }

    /// `text` is one line a terminal shows as it is: no control characters.
    static func requirePlainLine(_ text: String, _ what: String) {
        guard propertiesEnabled else { return }
        if let scalar = firstControl(in: text) {
            require(false, "\(what) holds control character U+\(String(scalar.value, radix: 16, uppercase: true)): \(quote(text))")
        }
    }

    /// Runs `body` to completion on the cooperative pool; libFuzzer calls
    /// targets synchronously on its own thread.
    static func runBlocking(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await body()
            done.signal()
        }
        done.wait()
    }

    /// Keeps the optimiser from dropping a computation whose result a target ignores.
    @inline(never)
    static func use<T>(_ value: T) {
        withExtendedLifetime(value) {}
    }

    /// The bytes of one libFuzzer input.
    static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Splits `bytes` at every occurrence of `separator`.
    static func split(_ bytes: [UInt8], on separator: [UInt8]) -> [[UInt8]] {
        guard !separator.isEmpty, bytes.count >= separator.count else { return [bytes] }
        var parts: [[UInt8]] = []
        var start = 0
        var index = 0
        while index + separator.count <= bytes.count {
            if bytes[index] == separator[0], Array(bytes[index..<index + separator.count]) == separator {
                parts.append(Array(bytes[start..<index]))
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        parts.append(Array(bytes[start...]))
        return parts
    }
}
