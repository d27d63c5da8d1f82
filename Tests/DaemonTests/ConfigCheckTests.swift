import Configuration
import Foundation
import Kiosk
import SystemSupport
import XCTest
@testable import Daemon

/// check-config's checks, as the web page's editor runs them on a proposed text.
final class ConfigCheckTests: XCTestCase {
    func testAProposedTextIsCheckedInsteadOfTheFileAndNamedByThePath() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("config-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("gateway.conf").path
        try "[device]\nhost = 192.0.2.1\n".write(toFile: path, atomically: true, encoding: .utf8)

        let (settings, playlist) = try ConfigCheck.run(path: path, text: "[device]\nhost = 192.0.2.9\n")
        XCTAssertEqual(settings.gateway.device.target, .address(host: "192.0.2.9", port: 8009))
        XCTAssertNil(playlist, "no kiosk, no playlist")

        XCTAssertThrowsError(try ConfigCheck.run(path: path, text: "[device]\nhost = 192.0.2.9\n[nonsense]\n")) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(path):3: [nonsense]: unknown section"), "\(error)")
        }
        // With [kiosk] on, the playlist is checked too, as check-config does.
        let missing = directory.appendingPathComponent("missing.m3u").path
        XCTAssertThrowsError(try ConfigCheck.run(path: path, text: "[device]\nhost = 192.0.2.9\n[kiosk]\nplaylist = \(missing)\n")) { error in
            XCTAssertTrue(error is PlaylistError, "\(error)")
            XCTAssertTrue("\(error)".contains(missing), "\(error)")
        }
    }
}
