#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The device-authentication test PKI, made once per test process by
/// Tests/pki/make-test-pki.sh (the openssl CLI) in a fresh temporary
/// directory. See the script for the layout.
public enum TestPKI {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private static let made = Mutex<Result<String, Failure>?>(nil)

    /// The PKI directory, made on first use.
    public static func directory() throws -> String {
        try made.withLock { cached in
            if let cached { return try cached.get() }
            let result = make()
            cached = result
            return try result.get()
        }
    }

    /// `directory()/relative`.
    public static func path(_ relative: String) throws -> String { try directory() + "/" + relative }

    /// The text of `directory()/relative`.
    public static func read(_ relative: String) throws -> String {
        let path = try path(relative)
        guard let file = fopen(path, "r") else { throw Failure(description: "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func make() -> Result<String, Failure> {
        var template = Array("/tmp/cast-gateway-test-pki-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { return .failure(Failure(description: "mkdtemp failed")) }
        let directory = String(cString: created)
        let script = scriptPath()
        let status = run(["/bin/bash", script, directory])
        // Removed when the test process exits.
        atexit { TestPKI.removeDirectory() }
        guard status == 0 else { return .failure(Failure(description: "\(script) failed with status \(status)")) }
        return .success(directory)
    }

    private static func removeDirectory() {
        guard case .success(let directory)? = made.withLock({ $0 }) else { return }
        _ = run(["/bin/rm", "-rf", directory])
    }

    /// Tests/pki/make-test-pki.sh, found from this source file.
    private static func scriptPath() -> String {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)  // TestSupport/TestPKI.swift
        return parts.joined(separator: "/") + "/pki/make-test-pki.sh"
    }

    /// Runs `arguments` and waits for it; its output is discarded.
    private static func run(_ arguments: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
