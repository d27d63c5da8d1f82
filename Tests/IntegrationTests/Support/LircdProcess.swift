import Foundation
import SystemSupport
import XCTest

/// A real lircd with no IR hardware (`--driver=file`) that accepts injected
/// key events (`--allow-simulate`), on its own socket in the test's directory.
final class LircdProcess {
    let socketPath: String
    let process: ManagedProcess

    init(directory: URL) throws {
        socketPath = directory.appendingPathComponent("lircd.sock").path
        try? FileManager.default.removeItem(atPath: socketPath)
        process = try ManagedProcess("/usr/sbin/lircd", [
            "--nodaemon", "--driver=file", "--device=/dev/null", "--allow-simulate",
            "--output=\(socketPath)", "--pidfile=\(directory.appendingPathComponent("lircd.pid").path)",
            "--logfile=\(directory.appendingPathComponent("lircd.log").path)",
            "/etc/lirc/lircd.conf.d/devinput.lircd.conf",
        ])
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socketPath), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        guard FileManager.default.fileExists(atPath: socketPath) else {
            process.stop()
            throw StartupError(message: "lircd did not start: \(process.allOutput)")
        }
    }

    func stop(signal: Int32 = SIGTERM) { process.stop(signal: signal) }

    /// Injects key events (`CODE REPEAT BUTTON REMOTE`) over one connection,
    /// as `irsend SIMULATE` does, and waits until lircd acknowledged them all.
    func simulate(_ events: [String]) throws {
        let fd = try UnixSocket.connectStream(to: socketPath)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var replies = ""
        var buffer = [UInt8](repeating: 0, count: 65536)
        for (index, event) in events.enumerated() {
            let command = Array("SIMULATE \(event)\n".utf8)
            _ = command.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            // Read acknowledgements in batches so lircd's output buffer never fills.
            if index % 50 == 49 || index == events.count - 1 {
                while replies.components(separatedBy: "END\n").count - 1 < index + 1 {
                    let count = read(fd, &buffer, buffer.count)
                    guard count > 0 else { throw StartupError(message: "lircd stopped answering SIMULATE") }
                    replies += String(decoding: buffer[0..<count], as: UTF8.self)
                }
            }
        }
        if replies.contains("ERROR") { throw StartupError(message: "lircd refused a SIMULATE: \(replies.prefix(300))") }
    }
}
