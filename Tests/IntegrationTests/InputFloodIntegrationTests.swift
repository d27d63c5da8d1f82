import Foundation
import TestSupport
import XCTest

/// 100,000 random key events at full speed through lircd's socket into the
/// real daemon, driving the real simulator: queues and memory stay bounded,
/// and the daemon ends alive, answering, and agreeing with the receiver.
final class InputFloodIntegrationTests: XCTestCase {
    /// The default Linux-input keymap's keys (RemoteInput's `Keymap.linuxInputDefaults`).
    private static let mappedKeys = [
        "KEY_PLAY", "KEY_PLAYCD", "KEY_PAUSE", "KEY_PAUSECD", "KEY_PLAYPAUSE", "KEY_OK", "KEY_SELECT", "KEY_ENTER",
        "KEY_STOP", "KEY_STOPCD", "KEY_NEXTSONG", "KEY_NEXT", "KEY_CHANNELUP", "KEY_PREVIOUSSONG", "KEY_PREVIOUS",
        "KEY_CHANNELDOWN", "KEY_FASTFORWARD", "KEY_FORWARD", "KEY_RIGHT", "KEY_REWIND", "KEY_LEFT", "KEY_VOLUMEUP",
        "KEY_VOLUMEDOWN", "KEY_MUTE", "KEY_SUBTITLE", "KEY_TEXT", "KEY_LANGUAGE", "KEY_AUDIO", "KEY_EXIT",
    ] + (0...9).flatMap { ["KEY_\($0)", "KEY_NUMERIC_\($0)"] }

    /// How much the daemon's RSS may grow, at its peak during the burst and after it.
    ///
    /// What the input path holds is bounded by construction: lircd's bytes in
    /// at most 64 reads of 4 KiB (256 KiB; then the daemon stops reading and
    /// lircd waits), key events in at most 256 entries, console output in 64
    /// KiB, the key history in 20 entries. Allocator arenas and pages of code
    /// touched for the first time add about 1.3 MB (measured, debug build).
    /// 4 MiB is three times that, yet the burst is over 6 MB of text (remote
    /// names of 1 to 60 characters), so a queue that kept it (bytes, lines or
    /// events, which take more room than their text) would cross it.
    private static let memoryBoundKB = 4 * 1024
    private static let events = 100_000

    func testAHundredThousandRandomKeysAtFullSpeedKeepQueuesAndMemoryBounded() async throws {
        let directory = try temporaryDirectory(self)
        let lircd = try FakeLircdSocket(directory: directory)
        defer { lircd.stop() }
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let terminal = try PseudoTerminal()
        let link = directory.appendingPathComponent("serial0").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: terminal.slavePath)
        let config = directory.appendingPathComponent("gateway.conf")
        try """
            [device]
            host = \(simulator.device)
            [lirc]
            socket = \(lircd.socketPath)
            [console]
            device = \(link)
            [presets]
            1 = http://media.test/one.mp4 | Channel One
            2 = http://media.test/two.mp4 | Channel Two
            """.write(to: config, atomically: true, encoding: .utf8)
        let daemon = try ManagedProcess(BuildProducts.path("cast-gateway"), ["run", "--config", config.path])
        defer { daemon.stop() }
        try lircd.acceptClient()
        XCTAssertNotNil(daemon.waitForLine(containing: "* IDLE"), daemon.allOutput)
        let prompt = await terminal.waitFor("cast-gateway> ")
        XCTAssertTrue(prompt, daemon.allOutput)
        // Something playing, so that play, pause, seek and volume keys all reach the receiver.
        try lircd.send(Array("0000000000000002 00 KEY_1 devinput-64\n".utf8))
        XCTAssertNotNil(daemon.waitForLine(containing: #"* PLAYING "Channel One""#), daemon.allOutput)

        let before = try ProcessProbe(pid: daemon.pid)
        var generator = SeededRandom()
        print("key flood: seed \(generator.seed) (repeat it with CAST_TEST_SEED=\(generator.seed))")
        let burst = Self.burst(count: Self.events, using: &generator)
        let peak = PeakSampler(pid: daemon.pid)
        let started = Date()
        try lircd.send(burst)
        let sent = Date().timeIntervalSince(started)
        XCTAssertGreaterThan(burst.count, 6_000_000, "the burst must be larger than the memory bound")

        let read = Date()
        // All read: the last line, the newest event, always survives the bounded queue.
        try await waitUntil("the daemon takes the burst's last line", timeout: 30) {
            let mark = terminal.text.count
            terminal.type("keys\r")
            return await terminal.waitFor("KEY_FLOOD_END", after: mark, timeout: .seconds(1))
        }
        // Settled: the daemon's status and the receiver's agree on player, volume and mute, and stay so for a second.
        var agreed: (ours: String, theirs: String)?
        var agreeingSince: Date?
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let ours = await status(terminal)
            let theirs = simulator.control("status") ?? ""
            if let ours, Self.agree(ours, theirs) {
                if agreed?.theirs != theirs { agreeingSince = Date() }
                agreed = (ours, theirs)
                if let since = agreeingSince, Date().timeIntervalSince(since) >= 1 { break }
            } else {
                agreed = nil
                agreeingSince = nil
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let settled = Date()
        let peakKB = peak.stop()
        XCTAssertTrue(daemon.isRunning, "the daemon died under the flood: \(daemon.stderr.suffix(20).joined(separator: "\n"))")
        if agreed == nil {
            let ours = await status(terminal) ?? "no status"
            XCTFail("daemon and receiver disagree after the flood: \(ours) / \(simulator.control("status") ?? "no simulator status")\n"
                    + daemon.stderr.suffix(30).joined(separator: "\n"))
        }
        let after = try ProcessProbe(pid: daemon.pid)
        XCTAssertLessThanOrEqual(after.rssKB, before.rssKB + Self.memoryBoundKB, "RSS \(before.rssKB) kB -> \(after.rssKB) kB")
        XCTAssertLessThanOrEqual(peakKB, before.rssKB + Self.memoryBoundKB, "RSS peaked at \(peakKB) kB (from \(before.rssKB) kB)")
        XCTAssertEqual(after.fds, before.fds, "descriptors before: \(before.fdList), after: \(after.fdList)")
        // Every line arrived whole: a dropped piece of the byte stream would glue two lines into a malformed one.
        let malformed = daemon.stderr.filter { $0.contains("malformed lircd line") || $0.contains("over-long line") }
        XCTAssertEqual(malformed.count, 0, "lines were damaged on the way: \(malformed.prefix(3))")
        XCTAssertFalse(daemon.stderr.contains { $0.contains("lost lircd") }, "the flood cost the lircd connection")

        // Still in command: a console volume and a key, both reflected on the receiver and in the status.
        terminal.type("vol 37\r")
        try await waitUntil("the receiver takes 'vol 37' after the flood") { simulator.control("status")?.contains("volume=37%") ?? false }
        try lircd.send(Array("0000000000000073 00 KEY_VOLUMEUP devinput-64\n".utf8))
        try await waitUntil("the receiver takes a volume key after the flood") { simulator.control("status")?.contains("volume=42%") ?? false }
        let final = await status(terminal)
        XCTAssertTrue(final?.contains("vol 42%") ?? false, "the daemon's status after the flood: \(final ?? "none")")
        print("input flood: \(Self.events) events, \(burst.count) bytes written in \(String(format: "%.2f", sent)) s, "
              + "settled \(String(format: "%.2f", settled.timeIntervalSince(read))) s later; "
              + "RSS \(before.rssKB) kB before, peak \(peakKB) kB, \(after.rssKB) kB after; fds \(before.fds) -> \(after.fds); "
              + "settled as \(agreed?.theirs ?? "-")")
    }

    /// `count` lircd lines: mapped keys and unknown ones, random repeat
    /// counts, remote names of 1 to 60 characters.
    private static func burst(count: Int, using generator: inout SeededRandom) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 100)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789-_")
        for _ in 0..<count {
            let key = Bool.random(using: &generator)
                ? mappedKeys.randomElement(using: &generator) ?? "KEY_PLAY"
                : "KEY_UNKNOWN_\(Int.random(in: 0..<5000, using: &generator))"
            let code = String(UInt64.random(in: 0...0x2ff, using: &generator), radix: 16)
            let repeatCount = String(Int.random(in: 0...0xff, using: &generator), radix: 16)
            let remote = String((0..<Int.random(in: 1...60, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator) ?? "x"
            })
            let line = String(repeating: "0", count: 16 - code.count) + code + " "
                + (repeatCount.count == 1 ? "0" : "") + repeatCount + " \(key) \(remote)\n"
            bytes.append(contentsOf: line.utf8)
        }
        bytes.append(contentsOf: "0000000000000000 00 KEY_FLOOD_END sentinel\n".utf8)
        return bytes
    }

    /// The console's `status` reply (its lines joined), or nil when it does not answer in 5 s.
    private func status(_ terminal: PseudoTerminal) async -> String? {
        let mark = terminal.text.count
        terminal.type("status\r")
        guard await terminal.waitFor("link:", after: mark) else { return nil }
        return String(terminal.text.dropFirst(mark))
    }

    /// Whether the daemon's status text and the simulator's summary show the same player, volume and mute.
    private static func agree(_ ours: String, _ theirs: String) -> Bool {
        guard let statusLine = ours.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("* ") }) else { return false }
        let fields = Dictionary(theirs.split(separator: " ").compactMap { part -> (String, String)? in
            let pair = part.split(separator: "=", maxSplits: 1)
            return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
        guard let volume = fields["volume"], statusLine.contains("vol \(volume)") else { return false }
        guard statusLine.contains("vol \(volume) muted") == (fields["muted"] == "true") else { return false }
        let player = statusLine.dropFirst(2).prefix { $0 != " " }
        switch fields["player"] {
        case "PLAYING", "PAUSED", "BUFFERING": return player == fields["player"]?[...]
        default: return player == "IDLE" || player == "READY" || player == "NONE"
        }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 10, _ condition: () async -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while await !condition(), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let held = await condition()
        XCTAssertTrue(held, what)
    }
}

/// A process's memory and descriptors from /proc.
private struct ProcessProbe {
    let rssKB: Int
    let fdList: [String]
    var fds: Int { fdList.count }

    init(pid: pid_t) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        rssKB = ProcessProbe.rss(status) ?? -1
        fdList = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").sorted().map { fd in
            "\(fd)->" + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")) ?? "?")
        }
    }

    static func rss(_ status: String) -> Int? {
        status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { Int($0.split(separator: " ")[1]) }
    }
}

/// Samples a process's RSS on a thread until stopped and keeps the highest.
private final class PeakSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var running = true
    private var peak = 0
    private let pid: pid_t

    init(pid: pid_t) {
        self.pid = pid
        Thread.detachNewThread { [self] in sample() }
    }

    private func sample() {
        while lock.withLock({ running }) {
            if let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8), let rss = ProcessProbe.rss(status) {
                lock.withLock { peak = max(peak, rss) }
            }
            Thread.sleep(forTimeInterval: 0.01)  // a sampling period, not a synchronisation
        }
    }

    /// Stops sampling and returns the peak RSS in kB.
    func stop() -> Int {
        lock.withLock {
            running = false
            return peak
        }
    }
}
