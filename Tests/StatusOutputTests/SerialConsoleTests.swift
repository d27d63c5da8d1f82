#if canImport(Glibc)
import Glibc
#endif
import Commands
import Foundation
import Synchronization
import SystemSupport
import TestSupport
import XCTest
@testable import StatusOutput

final class SerialConsoleTests: XCTestCase {
    private final class Commands: Sendable {
        let received = Mutex<[String]>([])
    }

    private var directory: URL!
    private var link: String { directory.appendingPathComponent("serial0").path }

    override func setUp() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func point(_ terminal: PseudoTerminal) {
        try? FileManager.default.removeItem(atPath: link)
        try? FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: terminal.slavePath)
    }

    /// A console on a fresh pty, started and showing its prompt.
    private struct Running {
        let terminal: PseudoTerminal
        let commands: Commands
        let console: RunningService
        let pushes: AsyncStream<SerialConsole.Push>.Continuation
    }

    private func running() async throws -> Running {
        let terminal = try PseudoTerminal()
        point(terminal)
        let commands = Commands()
        let (console, pushes) = startConsole(commands)
        let prompt = await terminal.waitFor("cast-gateway> ")
        XCTAssertTrue(prompt, "no prompt: \(terminal.text)")
        return Running(terminal: terminal, commands: commands, console: console, pushes: pushes)
    }

    private func startConsole(_ commands: Commands) -> (RunningService, AsyncStream<SerialConsole.Push>.Continuation) {
        let (pushes, continuation) = AsyncStream.makeStream(of: SerialConsole.Push.self)
        let console = SerialConsole(path: link, baud: 115_200, pushes: pushes) { line in
            commands.received.withLock { $0.append(line) }
            if line == "bogus" { return PendingResult(.failure(CommandError(.usage, "unknown command 'bogus' (try 'help')"))) }
            if line.hasPrefix("creds ") { return PendingResult(.success(CommandReply(["ok: launch credentials set (not shown)"]))) }
            return PendingResult(.success(CommandReply()))
        }
        return (RunningService(console), continuation)
    }

    func testCommandsRepliesAndRealTermiosSettings() async throws {
        let setup = try await running()
        defer { setup.console.cancel() }
        let terminal = setup.terminal, commands = setup.commands

        // The port is configured raw, 115200 8N1, ignoring modem control.
        let fd = open(terminal.slavePath, O_RDWR | O_NOCTTY)
        var settings = termios()
        tcgetattr(fd, &settings)
        close(fd)
        XCTAssertEqual(settings.c_lflag & tcflag_t(ICANON), 0)
        XCTAssertEqual(settings.c_lflag & tcflag_t(ECHO), 0)
        XCTAssertNotEqual(settings.c_cflag & tcflag_t(CLOCAL), 0)
        XCTAssertEqual(settings.c_cflag & tcflag_t(CSIZE), tcflag_t(CS8))
        XCTAssertEqual(cfgetospeed(&settings), speed_t(B115200))

        for command in ["play", "pause", "seek +30", "vol 40", "subs next", "cast http://x/v.mp4 Film", "status", "bogus"] {
            terminal.type(command + "\r")
        }
        let all = await eventually { commands.received.withLock { $0.count } == 8 }
        XCTAssertTrue(all)
        XCTAssertEqual(commands.received.withLock { $0 }, ["play", "pause", "seek +30", "vol 40", "subs next",
                                                           "cast http://x/v.mp4 Film", "status", "bogus"])
        let errorShown = await terminal.waitFor("error: unknown command 'bogus' (try 'help')\r\ncast-gateway> ")
        XCTAssertTrue(errorShown, terminal.text)
    }

    func testPushedStatusDoesNotGarbleAHalfTypedLine() async throws {
        let setup = try await running()
        defer { setup.console.cancel() }
        let terminal = setup.terminal, commands = setup.commands
        let pushes = setup.pushes
        terminal.type("pau")
        _ = await terminal.waitFor("pau")
        pushes.yield(.init(text: #"* PLAYING "Big Buck Bunny" 01:23/09:56 vol 40%"#, json: "{}"))
        let redrawn = await terminal.waitFor("\r\u{1B}[K* PLAYING \"Big Buck Bunny\" 01:23/09:56 vol 40%\r\ncast-gateway> pau")
        XCTAssertTrue(redrawn, terminal.text.debugDescription)
        terminal.type("se\r")
        let done = await eventually { commands.received.withLock { $0 } == ["pause"] }
        XCTAssertTrue(done, "\(commands.received.withLock { $0 })")
    }

    func testGarbageAndSecretsAreHandledSafely() async throws {
        let setup = try await running()
        defer { setup.console.cancel() }
        let terminal = setup.terminal, commands = setup.commands
        var generator = SystemRandomNumberGenerator()
        terminal.typeBytes((0..<3000).map { _ in UInt8.random(in: 0x20...0xFF, using: &generator) })
        terminal.type("\r")
        let rejected = await terminal.waitFor("error: line too long")
        XCTAssertTrue(rejected)
        terminal.type("creds hunter2\r")
        let accepted = await terminal.waitFor("credentials set (not shown)")
        XCTAssertTrue(accepted)
        XCTAssertFalse(terminal.text.contains("hunter2"), "the secret was echoed")
        XCTAssertTrue(terminal.text.contains("creds *******"))
        terminal.type("version\r")
        let alive = await eventually { commands.received.withLock { $0 }.last == "version" }
        XCTAssertTrue(alive)
    }

    func testJSONModeForScripts() async throws {
        let setup = try await running()
        defer { setup.console.cancel() }
        let terminal = setup.terminal
        let pushes = setup.pushes
        terminal.type("json on\r")
        _ = await terminal.waitFor(#"{"type":"reply","command":"json on","ok":true,"lines":["ok: json on"]}"#)
        terminal.type("bogus\r")
        let reply = await terminal.waitFor(#""command":"bogus","ok":false"#)
        XCTAssertTrue(reply, terminal.text)
        pushes.yield(.init(text: "* IDLE", json: #"{"type":"status","link":"connected"}"#))
        let pushed = await terminal.waitFor(#"{"type":"status","link":"connected"}"# + "\r\n")
        XCTAssertTrue(pushed)
        XCTAssertFalse(terminal.text.hasSuffix(LineEditor.prompt), "no prompt in json mode")
    }

    func testJSONModeNeverRepeatsASecretOrAControlCharacter() async throws {
        let setup = try await running()
        defer { setup.console.cancel() }
        let terminal = setup.terminal
        terminal.type("json on\r")
        _ = await terminal.waitFor(#""lines":["ok: json on"]}"#)
        terminal.type("creds hunter2-secret\r")
        let replied = await terminal.waitFor(#""command":"creds <hidden>""#)
        XCTAssertTrue(replied, terminal.text)
        XCTAssertFalse(terminal.text.contains("hunter2"), terminal.text)
        terminal.type("json off\r")
        _ = await terminal.waitFor("ok: json off")
        setup.pushes.yield(.init(text: "* PLAYING \"x\nFORGED\u{1B}[2J\"", json: "{}"))
        let pushed = await terminal.waitFor(#"* PLAYING "x\nFORGED\x1b[2J""#)
        XCTAssertTrue(pushed, terminal.text.debugDescription)
    }

    func testHangUpAndReplugReopensTheConsole() async throws {
        var terminal: PseudoTerminal? = try PseudoTerminal()
        point(terminal!)
        let commands = Commands()
        let (console, _) = startConsole(commands)
        defer { console.cancel() }
        _ = await terminal!.waitFor("cast-gateway> ")
        terminal = nil  // the far end goes away: the console sees a hang-up
        try await Task.sleep(for: .milliseconds(200))
        let replugged = try PseudoTerminal()
        point(replugged)
        let reopened = await replugged.waitFor("cast-gateway console", timeout: .seconds(15))
        XCTAssertTrue(reopened, "the console did not reopen the new device")
        replugged.type("status\r")
        let served = await eventually { commands.received.withLock { $0 } == ["status"] }
        XCTAssertTrue(served)
    }
    /// Holds commands until opened.
    private actor Gate {
        private var isOpen = false
        private var waiters: [CheckedContinuation<Void, Never>] = []

        func wait() async {
            guard !isOpen else { return }
            await withCheckedContinuation { waiters.append($0) }
        }

        func open() {
            isOpen = true
            waiters.forEach { $0.resume() }
            waiters.removeAll()
        }
    }

    func testAPasteOfThousandsOfCommandsWaitsInTheTerminalNotInMemory() async throws {
        let terminal = try PseudoTerminal()
        point(terminal)
        let commands = Commands()
        let gate = Gate()
        let (pushes, _) = AsyncStream.makeStream(of: SerialConsole.Push.self)
        let console = RunningService(SerialConsole(path: link, baud: 115_200, pushes: pushes) { line in
            commands.received.withLock { $0.append(line) }
            await gate.wait()  // a receiver that does not answer
            return PendingResult(.success(CommandReply()))
        })
        defer { console.cancel() }
        let prompt = await terminal.waitFor("cast-gateway> ")
        XCTAssertTrue(prompt)

        // The first command hangs: after a bounded number of waiting commands
        // the console stops reading, and the terminal fills up.
        let cap = 100_000
        var written = 0
        var pending: [UInt8] = []
        func writeSome() -> Bool {  // false when the terminal stayed full for a second
            while !pending.isEmpty {
                let count = pending.withUnsafeBytes { write(terminal.master, $0.baseAddress, $0.count) }
                if count > 0 {
                    pending.removeFirst(count)
                    continue
                }
                var entry = pollfd(fd: terminal.master, events: Int16(POLLOUT), revents: 0)
                if poll(&entry, 1, 1000) == 0 { return false }
            }
            return true
        }
        while written < cap {
            pending = Array("c\(written)\r".utf8)
            guard writeSome() else { break }
            written += 1
        }
        XCTAssertLessThan(written, cap, "the console kept reading commands it could not run: they queue without bound")
        XCTAssertEqual(commands.received.withLock { $0.count }, 1, "commands ran past the one that hangs")

        // The receiver answers again: every command runs, in order, none lost.
        await gate.open()
        let rest = writeSome()
        XCTAssertTrue(rest)
        let expected = (0..<written + (pending.isEmpty && written < cap ? 1 : 0)).map { "c\($0)" }
        let all = await eventually(timeout: .seconds(30)) { commands.received.withLock { $0.count } >= expected.count }
        XCTAssertTrue(all, "\(commands.received.withLock { $0.count }) of \(expected.count) commands ran")
        XCTAssertEqual(commands.received.withLock { $0 }, expected)
    }
}
