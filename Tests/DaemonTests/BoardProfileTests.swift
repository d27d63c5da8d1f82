import Foundation
import StatusOutput
import SystemSupport
import XCTest
@testable import Daemon

/// Every profile in boards/ is valid config, and a profile's values lie
/// beneath the config file's own.
final class BoardProfileTests: XCTestCase {
    private var boards: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("boards").path
    }

    func testEveryProfileInTheRepositoryParses() throws {
        let all = BoardProfile.all(directories: [boards])
        XCTAssertEqual(Set(all.map(\.name)), ["rpi3", "rpi4", "rpi5", "rpi-zero2w", "qemu-arm64", "qemu-x86_64"])
        for (name, result) in all {
            let profile = try result.get()
            XCTAssertEqual(profile.facts.name, name)
            XCTAssertTrue(["arm64", "amd64"].contains(profile.facts.architecture), name)
            XCTAssertFalse(profile.facts.model.isEmpty, name)
        }
        let pi5 = try BoardProfile.load(name: "rpi5", directories: [boards])
        XCTAssertTrue(pi5.facts.configTxt.count >= 1, "config.txt lines are repeatable: \(pi5.facts.configTxt)")
        let pi4 = try BoardProfile.load(name: "rpi4", directories: [boards])
        XCTAssertEqual(pi4.facts.ubootAddresses,
                       ["kernel_addr_r=0x00200000", "kernel_comp_addr_r=0x08000000", "ramdisk_addr_r=0x0c000000"])
        XCTAssertEqual(pi4.facts.ubootEnvironment, "fat")
        XCTAssertEqual(try BoardProfile.load(name: "qemu-arm64", directories: [boards]).facts.ubootEnvironment, "script")
    }

    func testUBootAddressesMustBeNameAddressPairs() throws {
        XCTAssertEqual(BoardProfile.Facts.addresses("a_r=0x1 b=0xFF"), ["a_r=0x1", "b=0xFF"])
        for bad in ["", "kernel_addr_r", "kernel_addr_r=200000", "kernel_addr_r=0x", "k=0x1=2", "k-r=0x1", "k=0xZZ"] {
            XCTAssertNil(BoardProfile.Facts.addresses(bad), bad)
        }
        let profile = "[board]\nname = x\nmodel = X\narch = arm64\nuboot-addresses = kernel_addr_r=200000\n[console]\ndevice = none\n"
        XCTAssertThrowsError(try BoardProfile(path: "boards/x.conf", text: profile)) { error in
            XCTAssertTrue("\(error)".contains("boards/x.conf:5") && "\(error)".contains("uboot-addresses"), "\(error)")
        }
    }

    func testAProfileGivesDefaultsBeneathTheFilesOwnValues() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("board-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("gateway.conf").path
        try "[board]\nname = rpi5\n[device]\nhost = 10.0.0.2\n".write(toFile: config, atomically: true, encoding: .utf8)
        let fromProfile = try DaemonSettings.load(path: config, boardDirectories: [boards])
        XCTAssertEqual(fromProfile.board?.name, "rpi5")
        XCTAssertEqual(fromProfile.console.device, "/dev/ttyAMA10", "the Pi 5's debug UART comes from the profile")
        XCTAssertFalse(fromProfile.expectsLirc || fromProfile.expectsCec, "a profile's sections are defaults, not requests")
        try "[board]\nname = rpi5\n[console]\ndevice = /dev/ttyUSB0\n".write(toFile: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(try DaemonSettings.load(path: config, boardDirectories: [boards]).console.device, "/dev/ttyUSB0",
                       "the file's own value wins")
        let overridden = try DaemonSettings.load(path: config, boardOverride: "rpi-zero2w", boardDirectories: [boards])
        XCTAssertEqual(overridden.board?.name, "rpi-zero2w", "run --board wins over [board] name")
        XCTAssertThrowsError(try DaemonSettings.load(path: config, boardOverride: "rpi9", boardDirectories: [boards])) { error in
            XCTAssertTrue("\(error)".contains("no board profile 'rpi9'"), "\(error)")
        }
    }
}
