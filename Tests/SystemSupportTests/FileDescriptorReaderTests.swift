#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// The reader keeps at most `limit` chunks for a slow consumer and then stops
/// reading, so a flood waits in the kernel instead of being cut into pieces.
final class FileDescriptorReaderTests: XCTestCase {
    private func socketPair() throws -> (reader: Int32, writer: Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw SystemError.current("socketpair") }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (fds[0], fds[1])
    }

    /// The byte at `offset` of the test stream: a pattern whose every shift differs.
    private static func byte(at offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset % 251) }

    func testAFloodWaitsForTheConsumerAndArrivesWhole() async throws {
        let (reader, writer) = try socketPair()
        let events = FileDescriptorReader.events(fd: FileDescriptor(rawValue: reader), queue: DispatchQueue(label: "test.reader"), limit: 8)
        var iterator = events.makeAsyncIterator()

        // Nobody consumes: the reader must stop after 8 chunks, so the writer
        // soon finds the socket full and it stays full.
        var written = 0
        let cap = 64 << 20
        var chunk = [UInt8](repeating: 0, count: 65536)
        writing: while written < cap {
            for index in chunk.indices { chunk[index] = Self.byte(at: written + index) }
            let count = chunk.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
                continue
            }
            guard count < 0, errno == EAGAIN || errno == EINTR else { throw SystemError.current("write") }
            var entry = pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)
            if poll(&entry, 1, 1000) == 0 { break writing }  // full for a second: the reader has stopped
        }
        XCTAssertLessThan(written, cap, "the reader kept reading with nobody consuming: bytes are being dropped or hoarded")
        close(writer)

        // Now the consumer takes everything: every byte, in order, then the end.
        var received = 0
        var damaged: Int?
        var ending: String?
        while let event = await iterator.next() {
            switch event {
            case .bytes(let bytes):
                XCTAssertLessThanOrEqual(bytes.count, 4096)
                for (index, value) in bytes.enumerated() where damaged == nil && value != Self.byte(at: received + index) {
                    damaged = received + index
                }
                received += bytes.count
            case .ended(let reason):
                ending = reason
            }
        }
        XCTAssertNil(damaged, "the stream differs from what was written at byte \(damaged ?? 0)")
        XCTAssertEqual(received, written)
        XCTAssertEqual(ending, "end of file")
    }

    func testAWriterFasterThanTheConsumerLosesNothing() async throws {
        let (reader, writer) = try socketPair()
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) & ~O_NONBLOCK)
        let total = 8 << 20
        let thread = Thread {
            var offset = 0
            var chunk = [UInt8](repeating: 0, count: 32768)
            while offset < total {
                for index in chunk.indices { chunk[index] = Self.byte(at: offset + index) }
                let count = chunk.withUnsafeBytes { write(writer, $0.baseAddress, min($0.count, total - offset)) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                offset += count
            }
            close(writer)
        }
        thread.start()
        var received = 0
        var damaged: Int?
        var chunks = 0
        for await event in FileDescriptorReader.events(fd: FileDescriptor(rawValue: reader), queue: DispatchQueue(label: "test.reader"), limit: 4) {
            guard case .bytes(let bytes) = event else { continue }
            for (index, value) in bytes.enumerated() where damaged == nil && value != Self.byte(at: received + index) {
                damaged = received + index
            }
            received += bytes.count
            chunks += 1
            if chunks % 64 == 0 { await Task.yield() }  // a consumer with other work to do
        }
        XCTAssertNil(damaged, "the stream differs from what was written at byte \(damaged ?? 0)")
        XCTAssertEqual(received, total)
    }

    func testARegularFileLongerThanTheLimitIsReadToTheEnd() async throws {
        // epoll cannot watch a regular file: after a pause the reader must go on by itself.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)").path
        defer { unlink(path) }
        let contents = (0..<300_000).map { Self.byte(at: $0) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(contents))
        let fd = open(path, O_RDONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var received: [UInt8] = []
        var ending: String?
        for await event in FileDescriptorReader.events(fd: FileDescriptor(rawValue: fd), queue: DispatchQueue(label: "test.reader"), limit: 2) {
            switch event {
            case .bytes(let bytes): received += bytes
            case .ended(let reason): ending = reason
            }
        }
        XCTAssertEqual(received.count, contents.count)
        XCTAssertTrue(received == contents, "the file was read out of order or with gaps")
        XCTAssertEqual(ending, "end of file")
    }

    func testAConsumerThatGoesAwayWhileTheReaderWaitsClosesTheDescriptor() async throws {
        let (reader, writer) = try socketPair()
        defer { close(writer) }
        var buffer = [CChar](repeating: 0, count: 256)
        let length = readlink("/proc/self/fd/\(reader)", &buffer, buffer.count - 1)
        let target = String(decoding: buffer[0..<max(0, length)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        XCTAssertTrue(target.hasPrefix("socket:"), target)
        do {
            let events = FileDescriptorReader.events(fd: FileDescriptor(rawValue: reader), queue: DispatchQueue(label: "test.reader"), limit: 1)
            var iterator = events.makeAsyncIterator()
            let bytes = [UInt8](repeating: 7, count: 65536)
            _ = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }  // more than one chunk: the reader pauses
            let first = await iterator.next()
            XCTAssertNotNil(first)
        }
        // The stream is gone: its paused source is cancelled and the descriptor closed.
        let closed = await eventually { !openFileDescriptorTargets().contains(target) }
        XCTAssertTrue(closed, "\(target) is still open: \(openFileDescriptorTargets())")
    }
}
