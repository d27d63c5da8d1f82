#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SystemSupport
import TestSupport
import XCTest

/// Signals the EINTR test's handler has taken (it only counts).
nonisolated(unsafe) private var interruptionsSeen: Int32 = 0

/// The descriptor seam: failures are `SystemError`s naming the call and the
/// file, descriptors are close-on-exec, would-block is told apart, and a
/// signal arriving during a blocking read does not end it.
final class FileDescriptorTests: XCTestCase {
    private func pipePair() throws -> (reader: FileDescriptor, writer: FileDescriptor) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw SystemError.current("pipe") }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    private func temporaryPath(_ name: String) -> String {
        NSTemporaryDirectory() + "fd-test-\(getpid())-\(name)"
    }

    func testAFailedOpenNamesTheCallAndThePath() {
        let path = temporaryPath("missing")
        XCTAssertThrowsError(try FileDescriptor.open(path, .readOnly)) { error in
            guard let error = error as? SystemError else { return XCTFail("not a SystemError: \(error)") }
            XCTAssertEqual(error.errno, ENOENT)
            XCTAssertTrue(error.isNotFound)
            XCTAssertEqual(error.description, "open \(path): No such file or directory")
        }
        XCTAssertThrowsError(try FileDescriptor.open(path, .readOnly, operation: "cannot open \(path)")) { error in
            XCTAssertEqual("\(error)", "cannot open \(path): No such file or directory")
        }
    }

    func testOpenedDescriptorsAreCloseOnExecAndWriteReadRoundTrips() throws {
        let path = temporaryPath("roundtrip")
        defer { unlink(path) }
        let writer = try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate], permissions: 0o600)
        XCTAssertNotEqual(fcntl(writer.rawValue, F_GETFD) & FD_CLOEXEC, 0)
        try writer.writeAll(Array("hello, descriptor".utf8))
        try writer.sync()
        writer.close()

        let reader = try FileDescriptor.open(path, .readOnly)
        defer { reader.close() }
        XCTAssertEqual(try reader.status().st_size, 17)
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = try reader.read(into: &buffer)
        XCTAssertEqual(String(decoding: buffer[0..<count], as: UTF8.self), "hello, descriptor")
        XCTAssertEqual(try reader.read(into: &buffer), 0, "end of file reads as 0")
    }

    func testANonBlockingReadWithNothingThereSaysItWouldBlock() throws {
        let (reader, writer) = try pipePair()
        defer { reader.close(); writer.close() }
        try reader.setNonBlocking()
        XCTAssertNotEqual(fcntl(reader.rawValue, F_GETFL) & O_NONBLOCK, 0)
        XCTAssertFalse(reader.hasInput)
        var buffer = [UInt8](repeating: 0, count: 8)
        XCTAssertThrowsError(try reader.read(into: &buffer)) { error in
            XCTAssertEqual((error as? SystemError)?.wouldBlock, true, "\(error)")
        }
        XCTAssertEqual(try writer.write([1, 2, 3]), 3)
        XCTAssertTrue(reader.hasInput)
        XCTAssertEqual(try reader.read(into: &buffer), 3)
    }

    func testADuplicateIsAnotherCloseOnExecDescriptorForTheSameFile() throws {
        let (reader, writer) = try pipePair()
        defer { reader.close() }
        let copy = try writer.duplicate()
        XCTAssertNotEqual(copy, writer)
        XCTAssertNotEqual(fcntl(copy.rawValue, F_GETFD) & FD_CLOEXEC, 0)
        writer.close()
        try copy.writeAll([42])
        copy.close()
        var buffer = [UInt8](repeating: 0, count: 4)
        XCTAssertEqual(try reader.read(into: &buffer), 1)
        XCTAssertEqual(buffer[0], 42)
        XCTAssertEqual(try reader.read(into: &buffer), 0, "both writers closed")
    }

    func testAcceptWithNobodyWaitingIsNilAndAnAcceptedSocketIsNonBlocking() throws {
        let path = temporaryPath("accept.sock")
        unlink(path)
        defer { unlink(path) }
        let listener = try FileDescriptor.socket(family: AF_UNIX, type: Int32(SOCK_STREAM.rawValue), nonBlocking: true)
        defer { listener.close() }
        XCTAssertEqual(UnixSocket.withAddress(path) { bind(listener.rawValue, $0, $1) }, 0)
        XCTAssertEqual(listen(listener.rawValue, 4), 0)
        XCTAssertNil(try listener.accept())

        let client = try UnixSocket.connect(to: path)
        defer { client.close() }
        let accepted = try XCTUnwrap(try listener.accept())
        defer { accepted.0.close() }
        XCTAssertNotEqual(fcntl(accepted.0.rawValue, F_GETFL) & O_NONBLOCK, 0)
        XCTAssertNotEqual(fcntl(accepted.0.rawValue, F_GETFD) & FD_CLOEXEC, 0)
    }

    func testAFailedConnectClosesItsSocketAndNamesThePath() throws {
        let path = temporaryPath("nobody.sock")
        let before = openDescriptors()
        XCTAssertThrowsError(try UnixSocket.connect(to: path)) { error in
            XCTAssertEqual("\(error)", "connect to \(path): No such file or directory")
        }
        XCTAssertEqual(openDescriptors(), before)
    }

    /// A blocking read interrupted by a signal whose handler is installed
    /// without SA_RESTART returns EINTR from the kernel; the seam retries it,
    /// so the read still delivers the byte written afterwards.
    func testASignalDuringABlockingReadDoesNotEndIt() async throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in interruptionsSeen += 1 }
        action.sa_flags = 0  // no SA_RESTART: the kernel hands EINTR back to the caller
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        XCTAssertEqual(sigaction(SIGUSR1, &action, &previous), 0)
        defer { sigaction(SIGUSR1, &previous, nil) }
        interruptionsSeen = 0

        let (reader, writer) = try pipePair()
        defer { reader.close(); writer.close() }
        final class Box: @unchecked Sendable {
            let lock = NSLock()
            var thread: pthread_t?
            var tid: Int32 = 0
            var result: Result<[UInt8], any Error>?
            func with<T>(_ body: (Box) -> T) -> T { lock.lock(); defer { lock.unlock() }; return body(self) }
        }
        let box = Box()
        let thread = Thread {
            // Created from a Dispatch worker, which blocks signals: let this one in.
            var mask = sigset_t()
            sigemptyset(&mask)
            sigaddset(&mask, SIGUSR1)
            pthread_sigmask(SIG_UNBLOCK, &mask, nil)
            box.with { $0.thread = pthread_self(); $0.tid = Int32((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last ?? "") ?? 0 }
            var buffer = [UInt8](repeating: 0, count: 4)
            let result = Result { () throws -> [UInt8] in
                let count = try reader.read(into: &buffer)
                return Array(buffer[0..<count])
            }
            box.with { $0.result = result }
        }
        thread.start()

        // The reader's thread is blocked in read(2) when /proc says so.
        #if arch(x86_64)
        let readSyscall = "0 "
        #else
        let readSyscall = "63 "
        #endif
        func inRead() -> Bool {
            let tid = box.with { $0.tid }
            guard tid != 0, let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/syscall", encoding: .utf8) else { return false }
            return text.hasPrefix(readSyscall)
        }
        let blocked = await eventually { inRead() }
        XCTAssertTrue(blocked, "the reader never blocked in read")
        let target = try XCTUnwrap(box.with { $0.thread })
        XCTAssertEqual(pthread_kill(target, SIGUSR1), 0)
        // Once the handler ran, the read was interrupted: it either ended (EINTR) or is waiting again.
        let settled = await eventually { interruptionsSeen == 1 && (box.with { $0.result != nil } || inRead()) }
        XCTAssertTrue(settled, "handler ran \(interruptionsSeen) times; reader ended: \(box.with { $0.result.map { "\($0)" } ?? "no" }); in read: \(inRead())")
        try writer.writeAll([7])
        let finished = await eventually { box.with { $0.result != nil } }
        XCTAssertTrue(finished)
        XCTAssertEqual(try box.with { $0.result }?.get(), [7])
    }

    private func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }
}
