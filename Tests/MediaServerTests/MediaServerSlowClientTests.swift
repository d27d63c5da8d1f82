import Foundation
import MediaServer
import XCTest

/// Slow and idle clients (slowloris) against the real server on loopback.
/// Other hosts are other loopback addresses (127.0.0.2 and up: all of
/// 127/8 is local on Linux); the receiver is 127.0.0.1.
final class MediaServerSlowClientTests: XCTestCase {
    func testTheReceiverIsServedWhileOtherHostsHoldSlowConnections() async throws {
        // No head deadline here: the held connections must stay held while counted, however slow the machine.
        let fixture = try await MediaFixture(test: self, limits: ConnectionLimits(headDeadlineSeconds: 0))
        // The receiver is 127.0.0.1 (the route to it leaves from 127.0.0.1).
        try await fixture.server.listen(towardReceiver: "127.0.0.1")
        // 200 hosts each open a connection and send one byte of a request head.
        var attackers: [Int32] = []
        defer { attackers.forEach { close($0) } }
        for index in 0..<200 {
            let source = "127.0.\(2 + index / 250).\(2 + index % 250)"
            let fd = try slowClient(from: source, to: fixture.port)
            attackers.append(fd)
            XCTAssertEqual(send(fd, "G", 1, Int32(MSG_NOSIGNAL)), 1)
        }
        // The receiver's fetch, while they are open.
        let response = try curl(fixture.url("/0/video.vtt"), extra: ["--interface", "127.0.0.1", "--max-time", "5"])
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.bodyText.hasPrefix("WEBVTT"))
        // The others hold their share, no more: the rest was closed at once.
        let open = attackers.filter { !isClosedByPeer($0) }.count
        XCTAssertGreaterThanOrEqual(open, 1, "no slow connection was held: the test did not attack")
        let held = await fixture.server.connectionsFromOthers()
        XCTAssertEqual(held, Int(fixture.server.limits.othersLimit))
        XCTAssertEqual(open, held)
    }

    func testAnotherHostIsServedWhenTheBudgetIsNotSpent() async throws {
        let fixture = try await MediaFixture(test: self)
        try await fixture.server.listen(towardReceiver: "127.0.0.1")
        let response = try curl(fixture.url("/0/video.vtt"), extra: ["--interface", "127.0.0.9"])
        XCTAssertEqual(response.status, 200)
    }

    func testAnotherHostTricklingItsRequestHeadIsCutOffButTheReceiverIsNot() async throws {
        let fixture = try await MediaFixture(test: self, limits: ConnectionLimits(idleTimeoutSeconds: 60, headDeadlineSeconds: 1))
        try await fixture.server.listen(towardReceiver: "127.0.0.1")
        // The deadline runs from the server's accept, which comes after this: a
        // busy machine can only make the measured time longer, never shorter.
        let started = Date()
        let attacker = try slowClient(from: "127.0.0.2", to: fixture.port)
        defer { close(attacker) }
        let receiver = try slowClient(from: "127.0.0.1", to: fixture.port)
        defer { close(receiver) }
        let line = "GET \(fixture.server.urlPrefix)/0/video.vtt HTTP/1.1\r\nHost: x\r\nX-Pad: "
        for fd in [attacker, receiver] {
            XCTAssertEqual(send(fd, line, line.utf8.count, Int32(MSG_NOSIGNAL)), line.utf8.count)
        }
        // Both trickle a byte every 100 ms (always within the idle timeout)
        // until the server closes the other host's connection.
        var closed = false
        while !closed, Date().timeIntervalSince(started) < 15 {
            for fd in [attacker, receiver] { _ = send(fd, "a", 1, Int32(MSG_NOSIGNAL)) }
            var poller = pollfd(fd: attacker, events: Int16(POLLIN), revents: 0)
            closed = poll(&poller, 1, 100) == 1 && isClosedByPeer(attacker)
        }
        XCTAssertTrue(closed, "the trickling connection of another host was not closed within 15 s")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.9, "closed before the deadline")
        // The receiver's equally slow request is still open, and answered once complete.
        XCTAssertFalse(isClosedByPeer(receiver))
        let rest = "\r\nConnection: close\r\n\r\n"
        XCTAssertEqual(send(receiver, rest, rest.utf8.count, Int32(MSG_NOSIGNAL)), rest.utf8.count)
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var poller = pollfd(fd: receiver, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) == 1 else { break }
            let count = recv(receiver, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        XCTAssertEqual(statusCode(of: response), 200)
        XCTAssertTrue(String(decoding: response, as: UTF8.self).contains("WEBVTT"))
    }

    func testAnotherHostGetsOneRequestPerConnection() async throws {
        let fixture = try await MediaFixture(test: self)
        try await fixture.server.listen(towardReceiver: "127.0.0.1")
        // Two requests pipelined on one connection: another host gets one answer.
        func answers(from source: String) throws -> Int {
            let request = "GET \(fixture.server.urlPrefix)/0/video.vtt HTTP/1.1\r\nHost: x\r\n\r\n"
            let script = """
                import socket, sys
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5, source_address=(sys.argv[2], 0))
                s.sendall(sys.argv[3].encode() * 2)
                out = b""
                try:
                    while out.count(b"HTTP/1.1 200") < 2:
                        chunk = s.recv(65536)
                        if not chunk: break
                        out += chunk
                except socket.timeout:
                    pass
                sys.stdout.write(str(out.count(b"HTTP/1.1 200")))
                """
            let result = try runTool("python3", ["-c", script, String(fixture.port), source, request], timeout: 20)
            guard result.status == 0 else { throw ToolError("python3: \(result.stderr)") }
            return Int(result.text) ?? -1
        }
        // (Today libmicrohttpd closes every connection after one answer, the
        // receiver's too, because the answer is queued on the first callback;
        // another host's must stay that way whatever becomes of that.)
        XCTAssertEqual(try answers(from: "127.0.0.2"), 1, "another host's connection serves one request")
    }

    func testAnIdleConnectionIsClosedAfterTheTimeout() async throws {
        let fixture = try await MediaFixture(test: self, limits: ConnectionLimits(idleTimeoutSeconds: 1))
        let fd = try slowClient(from: "127.0.0.1", to: fixture.port)
        defer { close(fd) }
        XCTAssertEqual(send(fd, "GET /0/vid", 10, Int32(MSG_NOSIGNAL)), 10)
        let started = Date()
        // Wait for the server's close (bounded), not for a fixed time.
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&poller, 1, 15_000), 1, "the server did not close the idle connection within 15 s")
        XCTAssertTrue(isClosedByPeer(fd))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.5, "closed before the timeout")
        // The server itself still answers.
        XCTAssertEqual(try curl(fixture.url("/0/video.vtt")).status, 200)
    }
}

/// A TCP connection from `source` (a loopback address) to 127.0.0.1:`port`.
func slowClient(from source: String, to port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw ToolError("socket: \(String(cString: strerror(errno)))") }
    func address(_ host: String, _ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }
    var local = address(source, 0)
    var remote = address("127.0.0.1", port)
    let length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } }
    guard bound == 0, connected == 0 else {
        let reason = String(cString: strerror(errno))
        close(fd)
        throw ToolError("connect from \(source) to port \(port): \(reason)")
    }
    return fd
}

/// Whether the peer closed `fd` (EOF or reset), without waiting.
func isClosedByPeer(_ fd: Int32) -> Bool {
    var byte: UInt8 = 0
    let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
    return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
}
