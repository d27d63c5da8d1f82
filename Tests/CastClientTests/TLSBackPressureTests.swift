import SystemSupport
import TestSupport
@testable import TLS
import XCTest

/// A receiver that floods bytes must not grow the gateway's memory: while the
/// consumer does not read, the connection stops reading and TCP pushes back.
/// Real OpenSSL over loopback.
final class TLSBackPressureTests: XCTestCase {
    override func setUp() {
        SignalStream.ignoreBrokenPipes()
    }

    func testAFloodingPeerIsHeldBackUntilTheConsumerReadsAndNothingIsLost() async throws {
        let blockSize = 1 << 20
        let blocks = 200
        let total = blockSize * blocks
        let listener = try TLSListener(port: 0, context: try TLSContext.server(commonName: "flooding-receiver"))
        defer { listener.close() }
        let progress = Progress()
        let server = Task { () -> TLSConnection? in
            for await connection in listener.connections { return connection }
            return nil
        }
        let client = try await TLSConnection.connect(host: "127.0.0.1", port: listener.port, context: try TLSContext.client())
        defer { client.close() }
        guard let sender = await server.value else { return XCTFail("the listener delivered no connection") }
        defer { sender.close() }

        // The server writes 200 MiB as fast as the socket takes it.
        let writer = Task { () async throws -> UInt64 in
            try await flood(sender, blocks: blocks, blockSize: blockSize, progress: progress)
        }

        // Nobody reads: the client stops reading and the server ends up waiting on the kernel.
        let bound = client.inboundLimit * TLSConnection.chunkSize
        let heldBack = await eventually(timeout: .seconds(30)) {
            let paused = await client.inboundBuffered().readingPaused
            let blocked = await sender.writeBlocked()
            return paused && blocked
        }
        XCTAssertTrue(heldBack, "the server never had to wait for the client: the client read without its consumer")
        let buffered = await client.inboundBuffered()
        XCTAssertLessThanOrEqual(buffered.peak, bound, "the client buffered \(buffered.peak) bytes for a consumer that did not read")
        let sentWhileHeld = await progress.bytes
        XCTAssertLessThan(sentWhileHeld, total / 2, "TCP flow control did not stop the server")

        // Now the consumer reads everything: the same bytes, in order.
        var received = 0
        var hash = FNV()
        for try await chunk in client.inbound {
            hash.add(chunk)
            received += chunk.count
            if received >= total { break }
        }
        let sentHash = try await writer.value
        XCTAssertEqual(received, total)
        XCTAssertEqual(hash.value, sentHash, "the bytes read are not the bytes sent, in order")
        let peak = (await client.inboundBuffered()).peak
        XCTAssertLessThanOrEqual(peak, bound, "the client buffered \(peak) bytes at one time (limit \(bound))")
    }

    /// The peer sends one TLS record and then nothing. The client reads it 512
    /// bytes at a time and stops after 4 reads: the rest of the record is
    /// inside OpenSSL (SSL_pending), and the socket will never be readable
    /// again. Reading must resume from there, not wait on the socket.
    func testReadingResumesFromWhatOpenSSLHoldsWhenThePeerHasStoppedSending() async throws {
        let blockSize = 16000
        let blocks = 1
        let listener = try TLSListener(port: 0, context: try TLSContext.server(commonName: "quiet-receiver"))
        defer { listener.close() }
        let server = Task { () -> TLSConnection? in
            for await connection in listener.connections { return connection }
            return nil
        }
        let client = try await TLSConnection.connect(host: "127.0.0.1", port: listener.port, context: try TLSContext.client(),
                                                     inboundLimit: 4, readSize: 512)
        defer { client.close() }
        guard let sender = await server.value else { return XCTFail("the listener delivered no connection") }
        defer { sender.close() }
        let writer = Task { () async throws -> UInt64 in
            try await flood(sender, blocks: blocks, blockSize: blockSize, progress: Progress())
        }
        let paused = await eventually(timeout: .seconds(30)) { await client.inboundBuffered().readingPaused }
        XCTAssertTrue(paused, "the client did not stop reading for a consumer that did not read")

        // If the reader stayed stuck, this closes the client and the loop below ends short.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            client.close()
        }
        defer { watchdog.cancel() }
        var received = 0
        var hash = FNV()
        for try await chunk in client.inbound {
            hash.add(chunk)
            received += chunk.count
            if received >= blocks * blockSize { break }
        }
        let sentHash = try await writer.value
        XCTAssertEqual(received, blocks * blockSize, "reading did not resume after the consumer caught up")
        XCTAssertEqual(hash.value, sentHash)
    }
}

/// Writes `blocks` blocks as fast as `connection` takes them; returns their hash.
private func flood(_ connection: TLSConnection, blocks: Int, blockSize: Int, progress: Progress) async throws -> UInt64 {
    var hash = FNV()
    for index in 0..<blocks {
        let bytes = block(index, size: blockSize)
        hash.add(bytes)
        try await connection.write(bytes)
        await progress.wrote(blockSize)
    }
    return hash.value
}

/// Block `index`: pseudo-random bytes, different for every block.
private func block(_ index: Int, size: Int) -> [UInt8] {
    var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 | 1
    var bytes = [UInt8](repeating: 0, count: size)
    bytes.withUnsafeMutableBytes { buffer in
        let words = buffer.bindMemory(to: UInt64.self)
        for offset in words.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            words[offset] = state
        }
    }
    return bytes
}

/// FNV-1a over a byte stream: order-sensitive, however the stream is split.
private struct FNV {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ bytes: [UInt8]) {
        var hash = value
        bytes.withUnsafeBufferPointer { buffer in
            for byte in buffer { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        }
        value = hash
    }
}

private actor Progress {
    private(set) var bytes = 0
    func wrote(_ count: Int) { bytes += count }
}
