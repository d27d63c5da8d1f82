import Commands
import Dispatch
import GatewayModel
import JSON
import ServiceLifecycle
import SystemSupport

/// The serial console: a prompt, a line editor and commands on a tty, with
/// status changes pushed as lines that never garble a half-typed command.
///
/// A `Service`: `run()` serves the port until cancelled. All tty I/O happens
/// on one Dispatch queue (a read source; writes are non-blocking and
/// buffered), and state touched there asserts it. Commands run one at a time
/// through `execute`, in order; a volume step's reply may wait for the
/// coalesced request while the next commands are taken in. A hang-up or a vanished device (USB gadget unplugged)
/// ends the session and the shared `ReopeningSource` reopens the port with
/// backoff. `json on` switches to one JSON object per line, without echo or
/// prompt, for scripts.
public final class SerialConsole: Service, @unchecked Sendable {
    /// Takes a command line in and returns its result, to await for the reply.
    public typealias Execute = @Sendable (String) async -> PendingResult

    /// A status change to push: as text, and as a JSON object for json mode.
    public struct Push: Sendable {
        public var text: String
        public var json: String
        public init(text: String, json: String) {
            self.text = text
            self.json = json
        }
    }

    public let name = "console"
    public let path: String
    public let baud: Int
    private let execute: Execute
    private let pushes: AsyncStream<Push>
    private let timeSource: any TimeSource
    private let queue = DispatchQueue(label: "cast-gateway.console")
    private let logger = Logger(label: "console")
    private let commands: AsyncStream<String>
    private let commandContinuation: AsyncStream<String>.Continuation
    // On `queue` only:
    private var fd: FileDescriptor?
    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?
    private var writeSourceActive = false
    private var pendingOutput: [UInt8] = []
    private var editor = LineEditor()
    private var jsonMode = false
    /// Commands submitted but not yet answered: the prompt returns with the reply.
    private var commandsInFlight = 0
    /// Whether the tty is left unread because `commandLimit` commands wait.
    private var readingPaused = false
    /// The session being served: resumed with the reason it ended.
    private var sessionEnded: CheckedContinuation<String, Never>?
    private var stopped = false

    /// Output kept while the terminal cannot take it; beyond this, output is dropped.
    static let outputLimit = 64 * 1024
    /// Commands waiting for `execute`, beyond which the tty is not read (so at
    /// most this plus one read's worth are queued): a paste of thousands of
    /// lines waits in the kernel and the sender, never in our memory.
    static let commandLimit = 16

    public init(path: String, baud: Int, pushes: AsyncStream<Push>, timeSource: any TimeSource = SystemTimeSource(),
                execute: @escaping Execute) {
        self.path = path
        self.baud = baud
        self.pushes = pushes
        self.timeSource = timeSource
        self.execute = execute
        (commands, commandContinuation) = AsyncStream.makeStream(of: String.self)
    }

    /// Serves the port (reopening it with backoff) and shows `pushes` as they
    /// arrive, until cancelled.
    public func run() async throws {
        // The port's failure is the console's (the service group reports and
        // restarts it); the session ends on every way out.
        defer {
            commandContinuation.finish()
            queue.sync {
                stopped = true
                endSession("stopped")
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let port = ReopeningSource(name: "console", device: Port(console: self), queue: self.queue,
                                           timeSource: self.timeSource,
                                           backoff: Backoff(initial: .milliseconds(500), maximum: .seconds(10)))
                try await port.run()
            }
            // Taken in one at a time, answered in the same order.
            let (replies, replyFeed) = AsyncStream.makeStream(of: (String, PendingResult).self)
            group.addTask {
                for await line in self.commands { replyFeed.yield((line, await self.execute(line))) }
                replyFeed.finish()
            }
            group.addTask {
                for await (line, pending) in replies {
                    let result = await pending.value()
                    self.queue.async {
                        self.commandsInFlight = max(0, self.commandsInFlight - 1)
                        self.showReply(to: line, ok: result.succeeded, result.textLines)
                        self.resumeReadingIfRoom()
                    }
                }
            }
            group.addTask {
                for await push in self.pushes {
                    self.queue.async { self.show(push) }
                }
            }
            try await group.waitForAll()  // each child ends when the service is cancelled
        }
    }

    /// The tty as a device for the `ReopeningSource`.
    struct Port: ReopenableDevice {
        let console: SerialConsole

        func open() throws -> FileDescriptor {
            do {
                return try SerialPort.open(console.path, baud: console.baud)
            } catch {
                throw DeviceProblem.retry("serial console \(console.path) unavailable: \(error)")
            }
        }

        func serve(_ fd: FileDescriptor, on queue: DispatchQueue) async -> String {
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    queue.async { console.attach(fd, ended: continuation) }
                }
            } onCancel: {
                queue.async { console.endSession("stopped") }
            }
        }
    }

    // MARK: Port (on `queue`)

    private func attach(_ descriptor: FileDescriptor, ended: CheckedContinuation<String, Never>) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped else {
            descriptor.close()
            ended.resume(returning: "stopped")
            return
        }
        fd = descriptor
        sessionEnded = ended
        logger.notice("serial console on \(path) at \(baud) baud")
        editor = LineEditor()
        editor.echo = !jsonMode
        commandsInFlight = 0
        pendingOutput.removeAll()
        let reader = DispatchSource.makeReadSource(fileDescriptor: descriptor.rawValue, queue: queue)
        reader.setEventHandler { self.readAvailable() }
        reader.setCancelHandler { descriptor.close() }
        readSource = reader
        let writer = DispatchSource.makeWriteSource(fileDescriptor: descriptor.rawValue, queue: queue)
        writer.setEventHandler { self.flush() }
        writeSource = writer
        writeSourceActive = false
        reader.resume()
        if !jsonMode { write("\r\ncast-gateway console; type 'help'\r\n" + LineEditor.prompt) }
    }

    private func closePort() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard fd != nil else { return }
        if let writeSource {
            if !writeSourceActive { writeSource.resume() }
            writeSource.cancel()
        }
        writeSource = nil
        writeSourceActive = false
        if readingPaused {
            readingPaused = false
            readSource?.resume()  // a suspended source would never run its cancel handler
        }
        readSource?.cancel()  // closes the descriptor
        readSource = nil
        fd = nil
    }

    /// Closes the port and tells the reopening loop why the session ended.
    private func endSession(_ reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        if reason == "stopped" { stopped = true }
        closePort()
        sessionEnded?.resume(returning: reason)
        sessionEnded = nil
    }

    private func hungUp(_ reason: String) {
        endSession("serial console \(path): \(reason)")
    }

    private func readAvailable() {
        dispatchPrecondition(condition: .onQueue(queue))
        var buffer = [UInt8](repeating: 0, count: 1024)
        while let fd {
            if commandsInFlight >= SerialConsole.commandLimit, !readingPaused, let readSource {
                readingPaused = true
                readSource.suspend()
                return
            }
            let count: Int
            do {
                count = try fd.read(into: &buffer)
            } catch {
                if !error.wouldBlock { hungUp(error.reason) }
                return
            }
            if count > 0 {
                handleInput(buffer[0..<count])
                continue
            }
            hungUp("hang-up")
            return
        }
    }

    /// A reply freed a place: read the tty again (what arrived meanwhile waits there).
    private func resumeReadingIfRoom() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard readingPaused, commandsInFlight < SerialConsole.commandLimit, let readSource else { return }
        readingPaused = false
        readSource.resume()
    }

    private func handleInput(_ bytes: ArraySlice<UInt8>) {
        let (echo, events) = editor.feed(bytes)
        if !echo.isEmpty { write(echo) }
        for event in events {
            switch event {
            case .line(let line):
                let trimmed = line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                if trimmed.isEmpty {
                    if !jsonMode { write(LineEditor.prompt) }
                } else if trimmed == "json on" || trimmed == "json off" {
                    jsonMode = trimmed == "json on"
                    editor.echo = !jsonMode
                    showReply(to: trimmed, ok: true, ["ok: json \(jsonMode ? "on" : "off")"])
                } else {
                    commandsInFlight += 1
                    commandContinuation.yield(trimmed)
                }
            case .interrupted:
                if !jsonMode { write(LineEditor.prompt) }
            case .tooLong:
                showReply(to: "", ok: false, ["error: line too long (at most \(editor.maximumLength) bytes); discarded"])
            }
        }
    }

    // MARK: Output (on `queue`)

    private func showReply(to command: String, ok: Bool, _ lines: [String]) {
        if jsonMode {
            let reply: JSONValue = [
                "type": "reply", "command": .string(SecretCommand.redacted(command)), "ok": .bool(ok),
                "lines": .array(lines.map { .string($0) }),
            ]
            write(reply.serialized + "\r\n")
        } else {
            // Replies can quote the network (a receiver's reason): no control characters reach the terminal.
            write(lines.map { $0.escapingControlCharacters() + "\r\n" }.joined() + LineEditor.prompt + editor.display)
        }
    }

    private func show(_ push: Push) {
        if jsonMode {
            write(push.json + "\r\n")
        } else {
            // Clear the line being typed, print the status, redraw prompt and input
            // (unless a command is running: its reply brings the prompt back).
            let redraw = commandsInFlight == 0 ? LineEditor.prompt + editor.display : ""
            write("\r\u{1B}[K" + push.text.escapingControlCharacters() + "\r\n" + redraw)
        }
    }

    private func write(_ text: String) {
        guard fd != nil else { return }
        guard pendingOutput.count + text.utf8.count <= SerialConsole.outputLimit else {
            logger.debug("console output dropped: the terminal is not reading")
            return
        }
        pendingOutput.append(contentsOf: text.utf8)
        flush()
    }

    private func flush() {
        while let fd, !pendingOutput.isEmpty {
            let written: Int
            do {
                written = try fd.write(pendingOutput)
            } catch {
                if error.wouldBlock {
                    if !writeSourceActive, let writeSource {
                        writeSourceActive = true
                        writeSource.resume()
                    }
                } else {
                    hungUp("write failed: \(error.reason)")
                }
                return
            }
            if written > 0 {
                pendingOutput.removeFirst(written)
                continue
            }
            hungUp("write failed: the terminal took no bytes")
            return
        }
        if writeSourceActive, let writeSource {
            writeSourceActive = false
            writeSource.suspend()
        }
    }
}
