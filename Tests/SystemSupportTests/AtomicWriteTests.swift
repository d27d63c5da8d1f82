#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import SystemSupport
import XCTest

/// `FileSystem.writeAtomically`: the file is always one whole version, even
/// with two writers of the same path in one process.
final class AtomicWriteTests: XCTestCase {
    func testTwoWritersOfOnePathNeverRenameEachOthersTemporaryFile() throws {
        let directory = NSTemporaryDirectory() + "atomic-write-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/state.json"
        let versions = ["first writer's version", "second writer's version"]
        let failures = NSLock()
        nonisolated(unsafe) var errors: [String] = []
        // Two stores saving the same file at once, as an old kiosk player's
        // queue finishing its last save while a new one saves.
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for _ in 0..<200 {
                do {
                    try FileSystem.writeAtomically(path, bytes: Array(versions[writer].utf8), mode: 0o600)
                } catch {
                    failures.lock()
                    errors.append("\(error)")
                    failures.unlock()
                }
            }
        }
        XCTAssertEqual(errors, [], "every write succeeds")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(versions.contains(text), "one whole version, not \(text)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory)
        XCTAssertEqual(left, ["state.json"], "no temporary file is left behind")
    }
}
