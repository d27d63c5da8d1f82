import Foundation
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
final class ManagedProcess: @unchecked Sendable {
    let name: String
    private let process = Process()
    private let stdinPipe = Pipe()
    private let lock = NSLock()
    private var stdoutLines: [String] = []
    private var stderrLines: [String] = []
    private var partial: [ObjectIdentifier: Data] = [:]

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        name = (executable as NSString).lastPathComponent
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "JOURNAL_STREAM")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdinPipe
        collect(out) { self.stdoutLines.append($0) }
        collect(err) { self.stderrLines.append($0) }
        try process.run()
    }

    deinit { stop() }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    var stdout: [String] { lock.withLock { stdoutLines } }
    var stderr: [String] { lock.withLock { stderrLines } }
    var allOutput: String { (stdout + stderr).joined(separator: "\n") }

    private func collect(_ pipe: Pipe, into append: @escaping @Sendable (String) -> Void) {
        let key = ObjectIdentifier(pipe)
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            guard let self else { return }
            let data = handle.availableData
            self.lock.withLock {
                if data.isEmpty {
                    if let rest = self.partial[key], !rest.isEmpty { append(String(decoding: rest, as: UTF8.self)) }
                    self.partial[key] = nil
                    handle.readabilityHandler = nil
                    return
                }
                var buffer = (self.partial[key] ?? Data()) + data
                while let newline = buffer.firstIndex(of: 0x0A) {
                    append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer = Data(buffer[(newline + 1)...])
                }
                self.partial[key] = buffer
            }
        }
    }

    /// Writes a line to the process's standard input.
    func send(_ line: String) {
        stdinPipe.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits (real time) until a line of stdout or stderr satisfies `match`.
    @discardableResult
    func waitForLine(timeout: TimeInterval = 10, where match: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var seen = 0
        while Date() < deadline {
            let lines = stdout + stderr
            if let line = lines.dropFirst(seen).first(where: match) { return line }
            seen = 0
            Thread.sleep(forTimeInterval: 0.02)
        }
        return (stdout + stderr).first(where: match)
    }

    func waitForLine(containing text: String, timeout: TimeInterval = 10) -> String? {
        waitForLine(timeout: timeout) { $0.contains(text) }
    }

    /// Sends SIGTERM (or `signal`), waits up to 5 s, then SIGKILL.
    func stop(signal: Int32 = SIGTERM) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for the process to exit on its own and returns its status.
    func waitForExit(timeout: TimeInterval = 30) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard !process.isRunning else {
            stop(signal: SIGKILL)
            return nil
        }
        // Give the pipe readers a moment to deliver the last lines.
        Thread.sleep(forTimeInterval: 0.05)
        return process.terminationStatus
    }
}

/// Runs `cast-gateway` to completion: (exit status, stdout + stderr).
func runGateway(_ arguments: [String], timeout: TimeInterval = 40) throws -> (status: Int32, output: String) {
    let process = try ManagedProcess(BuildProducts.path("cast-gateway"), arguments)
    let status = process.waitForExit(timeout: timeout) ?? -1
    return (status, process.allOutput)
}

/// A temporary directory removed at the end of the test.
func temporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cast-gateway-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}
