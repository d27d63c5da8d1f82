import Foundation
import TestSupport
import XCTest

/// Where the package's executables were built (beside the test bundle).
enum BuildProducts {
    static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["CAST_GATEWAY_BIN_DIR"] {
            return URL(fileURLWithPath: override)
        }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return bundle.deletingLastPathComponent()
    }()

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}

/// A child process whose output is collected line by line. It is killed (by
/// pid) when stopped or released, so no test leaves a daemon behind.
///
/// Spawned with posix_spawn and reaped with waitpid by this class itself:
/// Foundation's `Process` was seen to miss a child's exit and hang
/// `waitUntilExit()` forever.
final class ManagedProcess: @unchecked Sendable {
    let name: String
    let pid: pid_t
    private let stdinWriter: Int32
    private let lock = NSLock()
    private var stdoutLines: [String] = []
    private var stderrLines: [String] = []
    private var exitStatus: Int32?
    private var inputClosed = false
    private var readers: [Thread] = []

    /// A write to a child that already exited must fail, not kill the tests.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        ManagedProcess.ignoreBrokenPipes
        name = (executable as NSString).lastPathComponent
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "JOURNAL_STREAM")
        for (key, value) in environment { env[key] = value }

        guard let input = closeOnExecPipe(), let output = closeOnExecPipe(), let errors = closeOnExecPipe() else {
            throw StartupError(message: "pipe failed: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        for fd in input + output + errors { posix_spawn_file_actions_addclose(&actions, fd) }

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(input[0]); close(output[1]); close(errors[1])
        guard result == 0 else {
            close(input[1]); close(output[0]); close(errors[0])
            throw StartupError(message: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        stdinWriter = input[1]
        readers = [startReader(output[0]) { self.stdoutLines.append($0) },
                   startReader(errors[0]) { self.stderrLines.append($0) }]
    }

    deinit {
        stop()
        if !inputClosed { close(stdinWriter) }
    }

    /// Reads `fd` to its end on a thread, splitting lines.
    private func startReader(_ fd: Int32, append: @escaping @Sendable (String) -> Void) -> Thread {
        let thread = Thread { [lock] in
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    lock.withLock { append(line) }
                    pending = Data(pending[(newline + 1)...])
                }
            }
            if !pending.isEmpty {
                let line = String(decoding: pending, as: UTF8.self)
                lock.withLock { append(line) }
            }
            close(fd)
        }
        thread.start()
        return thread
    }

    var stdout: [String] { lock.withLock { stdoutLines } }
    var stderr: [String] { lock.withLock { stderrLines } }
    var allOutput: String { (stdout + stderr).joined(separator: "\n") }

    /// Reaps the child if it has exited; true while it runs.
    var isRunning: Bool {
        lock.withLock {
            guard exitStatus == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                // Exit code, or 128 + signal like a shell.
                let signal = status & 0x7F
                exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
                return false
            }
            return result == 0
        }
    }

    /// Closes the process's standard input: it reads end of file.
    func closeInput() {
        lock.withLock {
            guard !inputClosed else { return }
            inputClosed = true
            close(stdinWriter)
        }
    }

    /// Writes a line to the process's standard input.
    func send(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        lock.withLock {
            guard !inputClosed else { return }
            _ = bytes.withUnsafeBytes { write(stdinWriter, $0.baseAddress, $0.count) }
        }
    }

    /// Waits (real time) until a line of stdout or stderr satisfies `match`.
    @discardableResult
    func waitForLine(timeout: TimeInterval = 30, where match: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = (stdout + stderr).first(where: match) { return line }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return (stdout + stderr).first(where: match)
    }

    func waitForLine(containing text: String, timeout: TimeInterval = 30) -> String? {
        waitForLine(timeout: timeout) { $0.contains(text) }
    }

    /// Sends SIGTERM (or `signal`), waits up to 5 s, then SIGKILL; always reaps.
    func stop(signal: Int32 = SIGTERM) {
        guard isRunning else { return }
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(5)
        while isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if isRunning {
            kill(pid, SIGKILL)
            while isRunning { Thread.sleep(forTimeInterval: 0.01) }
        }
    }

    /// Waits for the process to exit on its own and returns its status
    /// (nil, after killing it, on timeout).
    func waitForExit(timeout: TimeInterval = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard !isRunning else {
            stop(signal: SIGKILL)
            return nil
        }
        // Let the readers deliver the last lines (they end at end of file; a busy machine may take a while).
        let drained = Date().addingTimeInterval(10)
        while readers.contains(where: { !$0.isFinished }), Date() < drained { Thread.sleep(forTimeInterval: 0.005) }
        return lock.withLock { exitStatus }
    }
}

/// Runs `cast-gateway` to completion: (exit status, stdout + stderr).
func runGateway(_ arguments: [String], timeout: TimeInterval = 40,
                environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
    let process = try ManagedProcess(BuildProducts.path("cast-gateway"), arguments, environment: environment)
    let status = process.waitForExit(timeout: timeout) ?? -1
    return (status, process.allOutput)
}

/// `cast-gateway run` with `config` written to DIRECTORY/gateway.conf, stopped
/// (by pid) when the test ends; returns once it is connected (`* IDLE`).
func startGatewayDaemon(_ test: XCTestCase, in directory: URL, config: String) throws -> ManagedProcess {
    let path = directory.appendingPathComponent("gateway.conf")
    try config.write(to: path, atomically: true, encoding: .utf8)
    let daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", path.path])
    test.addTeardownBlock { daemon.stop() }
    XCTAssertNotNil(daemon.waitForLine(containing: "* IDLE"), "daemon did not connect: \(daemon.allOutput)")
    return daemon
}

/// A temporary directory removed at the end of the test.
func temporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cast-gateway-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}
