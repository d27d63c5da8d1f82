#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import SystemSupport
import TestSupport
@testable import TLS
import XCTest

/// Closing a listener ends the handshakes under way: no task of it goes on
/// holding an accepted socket until the handshake timeout.
final class TLSListenerCloseTests: XCTestCase {
    /// Whether the other end of `fd` closes within 10 s (polled off the cooperative pool).
    private func endOfFile(on fd: Int32) async throws -> Bool {
        try await DispatchQueue(label: "test.peer-end").perform { () -> Bool in
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 10_000) == 1 else { return false }
            var byte: UInt8 = 0
            return read(fd, &byte, 1) == 0
        }
    }

    func testClosingTheListenerClosesSocketsStillInTheirHandshake() async throws {
        let listener = try TLSListener(port: 0, context: try TLSContext.server(commonName: "closing-listener"),
                                       handshakeTimeout: .seconds(120))
        // A peer that connects and never says hello.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = listener.port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0, "cannot connect to the listener: errno \(errno)")
        let accepted = await eventually { await listener.handshakesUnderway == 1 }
        XCTAssertTrue(accepted, "the listener did not start a handshake")

        listener.close()

        // The server's end closes now, not after the 120 s handshake timeout.
        let ended = try await endOfFile(on: fd)
        XCTAssertTrue(ended, "a socket in its handshake stayed open after the listener closed")
        let none = await eventually { await listener.handshakesUnderway == 0 }
        XCTAssertTrue(none, "handshakes still under way after close")
    }

    /// The listener's handshake task may start only after close() has freed
    /// the session (a busy machine): the handshake must fail at once, not
    /// drive the freed session (CI once died of SIGSEGV there) or hang.
    func testAHandshakeStartedAfterTheConnectionClosedFailsAtOnce() async throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds), 0)
        let peer = fds[1]
        defer { Glibc.close(peer) }
        let connection = try TLSConnection(fd: FileDescriptor(rawValue: fds[0]), role: .server,
                                           context: try TLSContext.server(commonName: "closed-early"), peerDescription: "socketpair")
        connection.close()
        // The session is freed and the socket closed together, in the sources'
        // cancel handlers: the peer's end of file says both have run.
        let closed = try await endOfFile(on: peer)
        XCTAssertTrue(closed, "the connection did not close its socket")

        let outcome = Mutex<String?>(nil)
        let handshake = Task {
            do {
                try await connection.handshake(timeout: .seconds(60))
                outcome.withLock { $0 = "the handshake succeeded" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
        }
        let ended = await eventually(timeout: .seconds(20)) { outcome.withLock { $0 != nil } }
        XCTAssertTrue(ended, "a handshake on a closed connection never ended")
        let text = outcome.withLock { $0 } ?? ""
        XCTAssertTrue(text.contains("closed before its TLS handshake began"), text)
        if ended { await handshake.value }
    }
}
