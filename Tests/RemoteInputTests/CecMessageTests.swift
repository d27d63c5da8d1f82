import CCecLoader
import GatewayModel
import XCTest
@testable import RemoteInput

/// libcec's `cec_command` to the gateway's messages and back, byte for byte.
final class CecMessageTests: XCTestCase {
    private func command(_ initiator: UInt8, _ destination: UInt8, _ opcode: UInt8, _ data: [UInt8]) -> cec_command {
        var command = cec_command()
        command.initiator = cec_logical_address(rawValue: numericCast(initiator))
        command.destination = cec_logical_address(rawValue: numericCast(destination))
        command.opcode = cec_opcode(rawValue: numericCast(opcode))
        command.opcode_set = 1
        withUnsafeMutableBytes(of: &command.parameters.data) { buffer in
            for (index, byte) in data.enumerated() { buffer[index] = byte }
        }
        command.parameters.size = UInt8(data.count)
        return command
    }

    private func bytes(_ command: cec_command) -> [UInt8] {
        let data: [UInt8] = withUnsafeBytes(of: command.parameters.data) { Array($0.prefix(Int(command.parameters.size))) }
        return [UInt8(command.destination.rawValue), UInt8(command.opcode.rawValue)] + data
    }

    func testTheTVsMessagesAreRead() {
        let cases: [(UInt8, UInt8, UInt8, [UInt8], TVBusMessage.Body?)] = [
            (0, 15, 0x36, [], .standby),
            (0, 4, 0x90, [1], .reportPowerStatus(.standby)),
            (0, 4, 0x90, [2], .reportPowerStatus(.on)),
            (8, 15, 0x82, [0x30, 0x00], .activeSource(0x3000)),
            (0, 15, 0x80, [0x20, 0x00, 0x10, 0x00], .routingChange(from: 0x2000, to: 0x1000)),
            (0, 15, 0x86, [0x21, 0x00], .setStreamPath(0x2100)),
            (0, 15, 0x87, [0x00, 0xE0, 0x91], .deviceVendorID(0x00E091)),
            (0, 4, 0x47, Array("Living\u{1}Room".utf8), .setOSDName("LivingRoom")),
            (0, 5, 0x71, [], .giveAudioStatus),
            (0, 5, 0x70, [0x20, 0x00], .systemAudioModeRequest(0x2000)),
            (0, 5, 0x70, [], .systemAudioModeRequest(nil)),
            (0, 5, 0x7D, [], .giveSystemAudioModeStatus),
            (0, 15, 0x72, [0], .setSystemAudioMode(false)),
            (0, 4, 0x89, [0x0A, 0xFF], .vendorCommand(opcode: 0x89, parameters: [0x0A, 0xFF])),
            (0, 4, 0x8A, [0x91], .vendorRemoteButtonDown([0x91])),
            (0, 4, 0x82, [0x30], nil),  // truncated: not a message
            (0, 4, 0x44, [0x44], nil),  // a key: the key callback's
        ]
        for (initiator, destination, opcode, data, body) in cases {
            let message = CecSource.message(from: command(initiator, destination, opcode, data))
            XCTAssertEqual(message?.body, body, "opcode \(opcode)")
            if body != nil {
                XCTAssertEqual(message?.initiator, initiator)
                XCTAssertEqual(message?.destination, destination)
            }
        }
    }

    func testTheGatewaysAnswersAreWritten() {
        let cases: [(TVBusMessage, [UInt8])] = [
            (TVBusMessage(from: 5, to: 0, .reportAudioStatus(volume: 37, muted: true)), [0, 0x7A, 0x80 | 37]),
            (TVBusMessage(from: 5, to: 0, .reportAudioStatus(volume: 140, muted: false)), [0, 0x7A, 100]),
            (TVBusMessage(from: 5, to: 15, .setSystemAudioMode(true)), [15, 0x72, 1]),
            (TVBusMessage(from: 5, to: 0, .systemAudioModeStatus(false)), [0, 0x7E, 0]),
            (TVBusMessage(from: 5, to: 0, .reportPowerStatus(.on)), [0, 0x90, 0]),
            (TVBusMessage(from: 4, to: 0, .giveDevicePowerStatus), [0, 0x8F]),
            (TVBusMessage(from: 4, to: 15, .requestActiveSource), [15, 0x85]),
            (TVBusMessage(from: 4, to: 15, .setStreamPath(0x2000)), [15, 0x86, 0x20, 0x00]),
        ]
        for (message, expected) in cases {
            XCTAssertEqual(bytes(CecSource.command(for: message)), expected, "\(message.body)")
        }
    }

    func testVendorKeysHaveNamesAKeymapCanUse() {
        XCTAssertEqual(CecKeyCodes.vendorName(for: 0x91), "VENDOR_91")
        XCTAssertEqual(CecKeyCodes.vendorName(for: 0x05), "VENDOR_05")
        XCTAssertNil(KeymapSettings.keyNameProblem("VENDOR_91", source: .cec))
        XCTAssertNotNil(KeymapSettings.keyNameProblem("VENDOR_911", source: .cec))
    }

    /// With libcec 7's command handler, <Standby> comes from there (libcec drops
    /// a second <Standby> within 10 s before `commandReceived`) and only from
    /// there, so one standby is one event; everything else, and everything
    /// with libcec 6, from `commandReceived`.
    func testStandbyIsTakenFromTheCommandHandlerWhereThereIsOne() {
        let standby = CEC_OPCODE_STANDBY, activeSource = CEC_OPCODE_ACTIVE_SOURCE
        XCTAssertTrue(CecSource.takes(opcode: standby, through: .commandHandler, handlerAvailable: true))
        XCTAssertFalse(CecSource.takes(opcode: standby, through: .commandReceived, handlerAvailable: true))
        XCTAssertFalse(CecSource.takes(opcode: activeSource, through: .commandHandler, handlerAvailable: true))
        XCTAssertTrue(CecSource.takes(opcode: activeSource, through: .commandReceived, handlerAvailable: true))
        XCTAssertTrue(CecSource.takes(opcode: standby, through: .commandReceived, handlerAvailable: false))
        XCTAssertFalse(CecSource.takes(opcode: standby, through: .commandHandler, handlerAvailable: false))
        XCTAssertTrue(CecSource.takes(opcode: activeSource, through: .commandReceived, handlerAvailable: false))
    }
}
