import Foundation
import XCTest

/// A process started by a test, its output going to a file. Stopped by its
/// pid (TERM, then KILL) when the test stops it or releases it.
/// (IntegrationTests' ManagedProcess reads pipes on threads; a file is
/// enough here and lets a test read a broker's log after a failure.)
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let name: String
    let outputPath: String
    private let lock = NSLock()
    private var exitStatus: Int32?

    init(_ executable: String, _ arguments: [String], outputPath: String) throws {
        name = (executable as NSString).lastPathComponent
        self.outputPath = outputPath
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Default signal handling and an empty mask: a child must not inherit
        // an ignored or blocked SIGTERM (mosquitto saves its database on TERM).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "JOURNAL_STREAM")
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawnp(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw NSError(domain: "ChildProcess", code: Int(result),
                          userInfo: [NSLocalizedDescriptionKey: "cannot start \(executable): \(String(cString: strerror(result)))"])
        }
        pid = child
    }

    deinit { stop(signal: SIGKILL) }

    var isRunning: Bool {
        lock.withLock {
            guard exitStatus == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let signal = status & 0x7F
                exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
                return false
            }
            return result == 0
        }
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// Sends `signal`, waits up to 5 s, then SIGKILL; always reaps.
    func stop(signal: Int32 = SIGTERM) {
        guard isRunning else { return }
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(5)
        while isRunning, Date() < deadline { usleep(5_000) }
        if isRunning {
            kill(pid, SIGKILL)
            while isRunning { usleep(5_000) }
        }
    }

    /// Waits for the process to end by itself; its exit status, or nil (and killed) after `timeout`.
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning, Date() < deadline { usleep(5_000) }
        guard !isRunning else {
            stop(signal: SIGKILL)
            return nil
        }
        return lock.withLock { exitStatus }
    }
}

/// A temporary directory removed at the end of the test.
func temporaryDirectory(_ test: XCTestCase) throws -> String {
    let path = NSTemporaryDirectory() + "fleet-test-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
func freeLoopbackPort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw NSError(domain: "port", code: Int(errno)) }
    return UInt16(bigEndian: address.sin_port)
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
func isListening(_ port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
