import Foundation
import TestSupport
import XCTest

/// The optional C libraries are loaded only when their part runs: a
/// gateway with a fixed host and nothing else maps none of them.
final class LazyLibraryTests: XCTestCase {
    /// The optional libraries (and GnuTLS, which only libmicrohttpd brings).
    static let optional = ["libmicrohttpd", "libgnutls", "libmosquitto", "libavahi", "libcec"]

    /// The file names of the libraries the process maps that start with one of `prefixes`.
    private func mapped(_ pid: pid_t, _ prefixes: [String]) throws -> Set<String> {
        // Read to the end: /proc files report size 0, and a read sized by it comes back short.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps"))
        defer { try? handle.close() }
        let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        XCTAssertTrue(maps.contains("cast-gateway"), "not the daemon's maps: \(maps)")
        var found = Set<String>()
        for line in maps.split(separator: "\n") {
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/") else { continue }
            let name = String(path.split(separator: "/").last ?? "")
            if prefixes.contains(where: { name.hasPrefix($0 + ".") || name.hasPrefix($0 + "-") }) { found.insert(name) }
        }
        return found
    }

    func testAMinimalGatewayMapsNoOptionalLibrary() throws {
        let directory = try temporaryDirectory(self)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        let daemon = try startGatewayDaemon(self, in: directory, config: "[device]\nhost = \(simulator.device)\n[console]\ndevice = none\n[log]\nlevel = info\n")
        XCTAssertEqual(try mapped(daemon.pid, Self.optional), [], "loaded although no part needs them")
        daemon.stop()
        XCTAssertFalse(daemon.isRunning)
    }

    func testMediaAndMQTTLoadTheirLibrariesWhenTheyRun() async throws {
        let directory = try temporaryDirectory(self)
        let media = directory.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let simulator = try SimulatorProcess(directory: directory)
        defer { simulator.stop() }
        // No broker listens on port 1: the library loads before the connection is refused.
        let daemon = try startGatewayDaemon(self, in: directory, config: """
            [device]
            host = \(simulator.device)
            [console]
            device = none
            [media]
            roots = \(media.path)
            port = 0
            [mqtt]
            broker = mqtt://127.0.0.1:1
            room = lazy
            ha-discovery = false
            [log]
            level = info

            """)
        let pid = daemon.pid
        var found = Set<String>()
        let loaded = try await eventually {
            found = try mapped(pid, ["libmicrohttpd", "libmosquitto"])
            return found.count == 2
        }
        XCTAssertTrue(loaded, "mapped: \(found); \(daemon.allOutput)")
        XCTAssertEqual(try mapped(pid, ["libavahi", "libcec"]), [], "nothing asked for mDNS or CEC")
        daemon.stop()
        XCTAssertFalse(daemon.isRunning)
    }
}
