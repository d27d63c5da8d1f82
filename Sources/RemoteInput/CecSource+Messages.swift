import CCecLoader
import GatewayModel

/// libcec's `cec_command` to and from the gateway's `TVBusMessage`.
extension CecSource {
    /// The message in `command`, or nil for one the gateway does not follow.
    static func message(from command: cec_command) -> TVBusMessage? {
        guard command.opcode_set == 1 else { return nil }  // a poll
        let size = min(Int(command.parameters.size), 64)
        let data: [UInt8] = withUnsafeBytes(of: command.parameters.data) { Array($0.prefix(size)) }
        func address(at index: Int) -> UInt16? {
            data.count >= index + 2 ? UInt16(data[index]) << 8 | UInt16(data[index + 1]) : nil
        }
        let body: TVBusMessage.Body
        switch UInt8(truncatingIfNeeded: command.opcode.rawValue) {
        case 0x36: body = .standby
        case 0x90:
            guard let status = data.first else { return nil }
            body = .reportPowerStatus(TVPower(cecStatus: status))
        case 0x82:
            guard let shown = address(at: 0) else { return nil }
            body = .activeSource(shown)
        case 0x80:
            guard let from = address(at: 0), let to = address(at: 2) else { return nil }
            body = .routingChange(from: from, to: to)
        case 0x86:
            guard let shown = address(at: 0) else { return nil }
            body = .setStreamPath(shown)
        case 0x85: body = .requestActiveSource
        case 0x87:
            guard data.count >= 3 else { return nil }
            body = .deviceVendorID(UInt32(data[0]) << 16 | UInt32(data[1]) << 8 | UInt32(data[2]))
        case 0x47: body = .setOSDName(String(decoding: data.prefix(14).filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self))
        case 0x46: body = .giveOSDName
        case 0x8C: body = .giveDeviceVendorID
        case 0x8F: body = .giveDevicePowerStatus
        case 0x71: body = .giveAudioStatus
        case 0x7A:
            guard let status = data.first else { return nil }
            body = .reportAudioStatus(volume: Int(status & 0x7F), muted: status & 0x80 != 0)
        case 0x70: body = .systemAudioModeRequest(address(at: 0))
        case 0x7D: body = .giveSystemAudioModeStatus
        case 0x7E:
            guard let mode = data.first else { return nil }
            body = .systemAudioModeStatus(mode == 1)
        case 0x72:
            guard let mode = data.first else { return nil }
            body = .setSystemAudioMode(mode == 1)
        case 0x89, 0xA0: body = .vendorCommand(opcode: UInt8(truncatingIfNeeded: command.opcode.rawValue), parameters: data)
        case 0x8A: body = .vendorRemoteButtonDown(data)
        default: return nil
        }
        return TVBusMessage(from: UInt8(truncatingIfNeeded: command.initiator.rawValue),
                            to: UInt8(truncatingIfNeeded: command.destination.rawValue), body)
    }

    /// The `cec_command` for `message` (the initiator is the caller's to set).
    static func command(for message: TVBusMessage) -> cec_command {
        var opcode: UInt8
        var data: [UInt8] = []
        func append(_ address: UInt16) { data += [UInt8(address >> 8), UInt8(address & 0xFF)] }
        switch message.body {
        case .standby: opcode = 0x36
        case .reportPowerStatus(let power): opcode = 0x90; data = [power.cecStatus]
        case .activeSource(let address): opcode = 0x82; append(address)
        case .routingChange(let from, let to): opcode = 0x80; append(from); append(to)
        case .setStreamPath(let address): opcode = 0x86; append(address)
        case .requestActiveSource: opcode = 0x85
        case .deviceVendorID(let vendor): opcode = 0x87; data = [UInt8(vendor >> 16 & 0xFF), UInt8(vendor >> 8 & 0xFF), UInt8(vendor & 0xFF)]
        case .setOSDName(let name): opcode = 0x47; data = Array(name.utf8.prefix(14))
        case .giveOSDName: opcode = 0x46
        case .giveDeviceVendorID: opcode = 0x8C
        case .giveDevicePowerStatus: opcode = 0x8F
        case .giveAudioStatus: opcode = 0x71
        case .reportAudioStatus(let volume, let muted):
            opcode = 0x7A
            data = [UInt8(min(max(volume, 0), 100)) | (muted ? 0x80 : 0)]
        case .systemAudioModeRequest(let address): opcode = 0x70; if let address { append(address) }
        case .giveSystemAudioModeStatus: opcode = 0x7D
        case .systemAudioModeStatus(let on): opcode = 0x7E; data = [on ? 1 : 0]
        case .setSystemAudioMode(let on): opcode = 0x72; data = [on ? 1 : 0]
        case .vendorCommand(let code, let parameters): opcode = code; data = Array(parameters.prefix(14))
        case .vendorRemoteButtonDown(let codes): opcode = 0x8A; data = Array(codes.prefix(14))
        }
        var command = cec_command()
        command.destination = cec_logical_address(rawValue: numericCast(message.destination))
        command.opcode = cec_opcode(rawValue: numericCast(opcode))
        command.opcode_set = 1
        command.transmit_timeout = 1000
        withUnsafeMutableBytes(of: &command.parameters.data) { buffer in
            for (index, byte) in data.prefix(buffer.count).enumerated() { buffer[index] = byte }
        }
        command.parameters.size = UInt8(data.count)
        return command
    }
}
