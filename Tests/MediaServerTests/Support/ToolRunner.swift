import Foundation
import Synchronization
import TestSupport
import XCTest

/// Runs a command-line tool (curl, python3, ffmpeg) to completion and
/// returns its exit status and output. posix_spawn + waitpid, like the
/// integration tests' ManagedProcess; every run is bounded by the tool's own
/// timeout option and killed by pid after `timeout`.
struct ToolResult {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
}

func runTool(_ executable: String, _ arguments: [String], timeout: TimeInterval = 30) throws -> ToolResult {
    guard let output = closeOnExecPipe(), let errors = closeOnExecPipe() else { throw ToolError("pipe: \(String(cString: strerror(errno)))") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, output[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    for fd in output + errors { posix_spawn_file_actions_addclose(&actions, fd) }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
    close(output[1]); close(errors[1])
    guard spawned == 0 else {
        close(output[0]); close(errors[0])
        throw ToolError("cannot start \(executable): \(String(cString: strerror(spawned)))")
    }
    // Kill by pid if the tool outlives its timeout.
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    let errorBytes = Mutex<[UInt8]>([])
    let errorsDone = DispatchSemaphore(value: 0)
    let errorFD = errors[0]
    DispatchQueue.global().async {
        let bytes = readAll(errorFD)
        errorBytes.withLock { $0 = bytes }
        errorsDone.signal()
    }
    let outBytes = readAll(output[0])
    errorsDone.wait()
    close(output[0]); close(errors[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let signal = status & 0x7F
    return ToolResult(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, stdout: outBytes,
                      stderr: String(decoding: errorBytes.withLock { $0 }, as: UTF8.self))
}

private func readAll(_ fd: Int32) -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        bytes.append(contentsOf: buffer[0..<count])
    }
    return bytes
}

struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One HTTP exchange made with curl.
struct CurlResponse {
    var status: Int
    /// Lower-cased header names of the final response.
    var headers: [String: String]
    var body: [UInt8]
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Makes a request with curl (`--path-as-is`: the target goes out as written).
func curl(_ url: String, method: String = "GET", headers: [String] = [], extra: [String] = []) throws -> CurlResponse {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let headerFile = directory.appendingPathComponent("headers").path
    let bodyFile = directory.appendingPathComponent("body").path
    var arguments = ["-sS", "--path-as-is", "--max-time", "10", "-D", headerFile, "-o", bodyFile, "-w", "%{http_code}"]
    switch method {
    case "GET": break
    case "HEAD": arguments.append("-I")
    default: arguments += ["-X", method]
    }
    for header in headers { arguments += ["-H", header] }
    arguments += extra
    arguments.append(url)
    let result = try runTool("curl", arguments, timeout: 20)
    guard result.status == 0 else { throw ToolError("curl \(url) failed (\(result.status)): \(result.stderr)") }
    let status = Int(result.text.trimmingCharacters(in: .whitespaces)) ?? -1
    var parsed: [String: String] = [:]
    let headerText = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
    // Only the last response's headers (after any 100 Continue).
    let blocks = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
    for line in (blocks.last ?? "").components(separatedBy: "\r\n").dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        parsed[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))).map { [UInt8]($0) } ?? []
    return CurlResponse(status: status, headers: parsed, body: body)
}

/// Sends `request` (raw bytes, hex-encoded to python) over one TCP
/// connection with python3 and returns everything the server sent until it
/// closed the connection.
func rawHTTP(port: UInt16, _ request: [UInt8]) throws -> [UInt8] {
    let hex = request.map { String(format: "%02x", $0) }.joined()
    let script = """
        import socket, sys
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
        s.sendall(bytes.fromhex(sys.argv[2]))
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk: break
            out += chunk
        sys.stdout.buffer.write(out)
        """
    let result = try runTool("python3", ["-c", script, String(port), hex], timeout: 20)
    guard result.status == 0 else { throw ToolError("python3 raw request failed: \(result.stderr)") }
    return result.stdout
}

/// The status code of a raw HTTP response, or -1.
func statusCode(of response: [UInt8]) -> Int {
    let head = String(decoding: response.prefix(64), as: UTF8.self)
    let parts = head.split(separator: " ")
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return -1 }
    return Int(parts[1]) ?? -1
}

/// A server process started for one test (python3 -m http.server): stopped
/// by pid, and reaped, when the test ends.
final class BackgroundProcess {
    let pid: pid_t
    private let output: Int32

    init(_ executable: String, _ arguments: [String], test: XCTestCase) throws {
        guard let pipeFDs = closeOnExecPipe() else { throw ToolError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 2)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // Default signal handling and no blocked signals in the child, whatever this thread has.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let spawned = posix_spawnp(&child, executable, &actions, &attributes, argv, environ)
        close(pipeFDs[1])
        guard spawned == 0 else {
            close(pipeFDs[0])
            throw ToolError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child
        output = pipeFDs[0]
        test.addTeardownBlock { [self] in stop() }
    }

    /// Reads output until a line contains `text` (blocking, bounded by `timeout`).
    func waitForLine(containing text: String, timeout: TimeInterval = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var pending = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { return nil }
            guard poller.revents != 0 else { continue }
            let count = read(output, &buffer, buffer.count)
            if count <= 0 { return nil }
            pending += String(decoding: buffer[0..<count], as: UTF8.self)
            if let line = pending.components(separatedBy: "\n").first(where: { $0.contains(text) }) { return line }
        }
        return nil
    }

    /// SIGTERM, then SIGKILL after 3 s; always reaped.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(3)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                break
            }
            usleep(10_000)
        }
        close(output)
    }
}
