#if canImport(Glibc)
import Glibc
#endif
import CastClient
import SystemSupport
import TestSupport
import TLS
import XCTest

/// Issue 8 §2: a retry loop that leaks one descriptor per failed attempt runs
/// out of descriptors in under a day at the 30 s cap. Every failed TLS
/// attempt must give back its socket and OpenSSL session.
final class FileDescriptorLeakTests: XCTestCase {
    override func setUp() {
        SignalStream.ignoreBrokenPipes()
    }

    /// Runs `attempt` once to warm up (Dispatch opens its own descriptors
    /// lazily), then 50 times, and asserts that the count of open descriptors
    /// comes back to where it was.
    private func assertNoGrowth(_ what: String, _ attempt: () async throws -> Void,
                                file: StaticString = #filePath, line: UInt = #line) async throws {
        try await attempt()
        // Descriptors are closed by Dispatch cancel handlers, shortly after a failure.
        var baseline = openFileDescriptorCount()
        _ = await eventually(timeout: .seconds(1)) {
            let now = openFileDescriptorCount()
            defer { baseline = now }
            return now == baseline
        }
        baseline = openFileDescriptorCount()
        for _ in 0..<50 { try await attempt() }
        let settled = await eventually { openFileDescriptorCount() <= baseline }
        XCTAssertTrue(settled, "\(what): \(baseline) descriptors before 50 failed attempts, \(openFileDescriptorCount()) after",
                      file: file, line: line)
    }

    private func failedConnect(port: UInt16) async throws {
        do {
            let connection = try await TLSConnection.connect(host: "127.0.0.1", port: port, context: try TLSContext.client(),
                                                             timeout: .seconds(5))
            connection.close()
            XCTFail("connected to 127.0.0.1:\(port)")
        } catch let error as TLSError {
            XCTAssertTrue(error.code == .connectFailed || error.code == .handshakeFailed, "\(error)")
        }
    }

    /// A port that was just free: nobody listens there.
    private func closedPort() throws -> UInt16 {
        let peer = try PlainTCPPeer(serve: { close($0) })
        peer.stop()
        return peer.port
    }

    func testFailedConnectsToAClosedPortLeakNothing() async throws {
        let port = try closedPort()
        try await assertNoGrowth("connect refused") { try await failedConnect(port: port) }
    }

    func testHandshakesWithAPlaintextServerThatClosesLeakNothing() async throws {
        let peer = try PlainTCPPeer(serve: PlainTCPPeer.closing)
        defer { peer.stop() }
        try await assertNoGrowth("plaintext peer closing") { try await failedConnect(port: peer.port) }
    }

    func testHandshakesWithAPlaintextHTTPServerLeakNothing() async throws {
        let peer = try PlainTCPPeer(serve: PlainTCPPeer.replying("HTTP/1.1 400 Bad Request\r\n\r\n"))
        defer { peer.stop() }
        try await assertNoGrowth("plaintext HTTP peer") { try await failedConnect(port: peer.port) }
    }

    /// The whole client retry loop on the manual clock, over real TLS to a
    /// server that is not Cast: each attempt builds a TLS connection and a
    /// channel, and both must go.
    func testClientRetriesAgainstANonCastServerLeakNothing() async throws {
        let peer = try HTTPSPeer()
        defer { peer.stop() }
        let clock = ManualTimeSource()
        let context = try TLSContext.client()
        let configuration = CastClient.Configuration(host: "127.0.0.1", port: peer.port,
                                                     backoff: Backoff(initial: .seconds(1), maximum: .seconds(1), jitter: 0))
        let client = CastClient(configuration: configuration, connector: { host, port in
            try await TLSConnection.connect(host: host, port: port, context: context, timeout: .seconds(5))
        }, timeSource: clock)
        await client.start()
        var attempts = 0
        func nextFailure() async throws {
            attempts += 1
            let waiting = await eventually {
                if case .waitingToReconnect(let attempt, _) = await client.currentState.phase { return attempt == attempts }
                return false
            }
            let phase = await client.currentState.phase
            XCTAssertTrue(waiting, "attempt \(attempts) did not fail: \(phase)")
            // The phase is published before the backoff sleep starts: advancing
            // earlier would move the clock past a sleeper that is not there yet.
            let sleeping = await eventually { clock.sleeperCount == 1 }
            XCTAssertTrue(sleeping, "no backoff sleep after attempt \(attempts)")
            await clock.advance(by: .seconds(1), step: .seconds(1))
        }
        try await assertNoGrowth("client retries against HTTPS") { try await nextFailure() }
        await client.stop()
        let lastError = await client.currentState.lastError
        XCTAssertEqual(lastError?.code, .protocolError)
    }
}
