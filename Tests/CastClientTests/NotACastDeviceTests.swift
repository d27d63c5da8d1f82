import CastClient
import CastProtocol
import SystemSupport
import TestSupport
import TLS
import XCTest

/// Issue 8 §6 and issue 9 §8: a peer that is not a Cast device gets a
/// message that says so, over real sockets on loopback.
final class NotACastDeviceTests: XCTestCase {
    override func setUp() {
        SignalStream.ignoreBrokenPipes()  // as the executables do: a closed peer is an error, not a signal
    }

    private func handshakeError(port: UInt16) async throws -> TLSError? {
        do {
            let connection = try await TLSConnection.connect(host: "127.0.0.1", port: port, context: try TLSContext.client(),
                                                             timeout: .seconds(5))
            connection.close()
            XCTFail("the TLS handshake succeeded")
            return nil
        } catch let error as TLSError {
            return error
        }
    }

    func testPlaintextServerThatClosesDuringTheHandshake() async throws {
        let peer = try PlainTCPPeer(serve: PlainTCPPeer.closing)
        defer { peer.stop() }
        let error = try await handshakeError(port: peer.port)
        XCTAssertEqual(error?.code, .handshakeFailed)
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("127.0.0.1:\(peer.port) closed the connection during the TLS handshake: is it a Cast device?"), message)
        XCTAssertFalse(message.contains("no OpenSSL error recorded"), message)
    }

    func testPlaintextHTTPServerAnsweringTheHandshake() async throws {
        let peer = try PlainTCPPeer(serve: PlainTCPPeer.replying("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
        defer { peer.stop() }
        let error = try await handshakeError(port: peer.port)
        XCTAssertEqual(error?.code, .handshakeFailed)
        let message = error?.message ?? ""
        XCTAssertTrue(message.contains("127.0.0.1:\(peer.port) does not speak Cast"), message)
    }

    func testHTTPSServerIsNotACastDevice() async throws {
        let peer = try HTTPSPeer()
        defer { peer.stop() }
        let context = try TLSContext.client()
        var configuration = CastClient.Configuration(host: "127.0.0.1", port: peer.port, backoff: Backoff(jitter: 0))
        configuration.requestTimeout = .seconds(5)
        let client = CastClient(configuration: configuration, connector: { host, port in
            try await TLSConnection.connect(host: host, port: port, context: context, timeout: .seconds(5))
        })
        await client.start()
        defer { Task { await client.stop() } }
        let failed = await eventually(timeout: .seconds(10)) { await client.currentState.lastError != nil }
        XCTAssertTrue(failed, "the client never gave up on the HTTPS server")
        let error = await client.currentState.lastError
        let message = error?.message ?? ""
        XCTAssertEqual(error?.code, .protocolError, message)
        XCTAssertTrue(message.contains("127.0.0.1:\(peer.port) does not speak Cast"), message)
        XCTAssertTrue(message.contains("HTTP/1.1 400 Bad Request"), message)
        XCTAssertFalse(message.contains("1213486160"), message)
        await client.stop()
    }
}
