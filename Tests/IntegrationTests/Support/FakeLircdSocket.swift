import Foundation
import SystemSupport

/// lircd's socket without lircd: the test listens where the daemon expects
/// lircd and writes key lines to the daemon's connection itself, as fast as
/// the daemon reads them (a real lircd acknowledges every SIMULATE, which
/// caps the rate far below what a flood needs).
final class FakeLircdSocket {
    let socketPath: String
    private var listener: Int32 = -1
    private var client: Int32 = -1

    init(directory: URL) throws {
        socketPath = directory.appendingPathComponent("lircd.sock").path
        try? FileManager.default.removeItem(atPath: socketPath)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw StartupError(message: "socket: \(String(cString: strerror(errno)))") }
        let bound = UnixSocket.withAddress(socketPath) { bind(listener, $0, $1) }
        guard bound == 0, listen(listener, 4) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw StartupError(message: "cannot listen on \(socketPath): \(reason)")
        }
    }

    deinit { stop() }

    /// Waits up to `timeout` for the daemon to connect.
    func acceptClient(timeout: TimeInterval = 10) throws {
        var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(timeout * 1000)) == 1 else {
            throw StartupError(message: "the daemon did not connect to \(socketPath) within \(timeout) s")
        }
        client = accept(listener, nil, nil)
        guard client >= 0 else { throw StartupError(message: "accept: \(String(cString: strerror(errno)))") }
        // A daemon that stops reading fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`, blocking only while the daemon's side is full.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(client, $0.baseAddress! + offset, bytes.count - offset) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                throw StartupError(message: "writing to the daemon failed after \(offset) of \(bytes.count) bytes: "
                                   + String(cString: strerror(errno)))
            }
            offset += written
        }
    }

    func stop() {
        if client >= 0 { close(client) }
        client = -1
        if listener >= 0 {
            close(listener)
            unlink(socketPath)
        }
        listener = -1
    }
}
