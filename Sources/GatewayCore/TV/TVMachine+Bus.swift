import GatewayModel

extension TVMachine {
    /// One message from the bus.
    mutating func received(_ message: TVBusMessage) {
        let fromTV = message.initiator == TVBusMessage.tv
        let toMe = message.destination == state.ownLogicalAddress
        switch message.body {
        case .standby:
            // The TV's own standby, or a "everything off" broadcast.
            if fromTV || message.destination == TVBusMessage.broadcast { tvPower(.standby) }
        case .reportPowerStatus(let power):
            if fromTV { tvPower(power) }
        case .activeSource(let address):
            if fromTV { tvPower(.on) }
            shown(address)
        case .routingChange(_, let to):
            // Only a TV that is on switches inputs.
            if fromTV { tvPower(.on) }
            shown(to)
        case .setStreamPath(let address):
            if fromTV { tvPower(.on) }
            shown(address)
        case .requestActiveSource:
            if fromTV { tvPower(.on) }
        case .deviceVendorID(let vendor):
            if fromTV { state.tv.vendorID = vendor }
        case .setOSDName(let name):
            if fromTV { state.tv.osdName = name }
        case .giveDevicePowerStatus:
            // The gateway is always on.
            if toMe { send(.reportPowerStatus(.on), to: message.initiator) }
        case .giveAudioStatus:
            guard toMe, configuration.audioSystem, state.volume != nil else { return }
            reportAudio(to: message.initiator)
            state.audioRepeat = (now + TVMachine.audioRepeatDelay, message.initiator)
        case .systemAudioModeRequest(let source):
            guard toMe, configuration.audioSystem else { return }
            state.systemAudioMode = source != nil
            send(.setSystemAudioMode(state.systemAudioMode), to: TVBusMessage.broadcast)
            if state.systemAudioMode, state.volume != nil { reportAudio(to: message.initiator) }
        case .giveSystemAudioModeStatus:
            guard toMe, configuration.audioSystem else { return }
            send(.systemAudioModeStatus(state.systemAudioMode), to: message.initiator)
        case .setSystemAudioMode(let on):
            if fromTV, configuration.audioSystem { state.systemAudioMode = on }
        case .vendorCommand(let opcode, let parameters):
            let bytes = [message.initiator << 4 | message.destination, opcode] + parameters
            guard state.loggedVendorCommands.count < TVMachine.vendorLogLimit, state.loggedVendorCommands.insert(bytes).inserted else { return }
            let vendor = fromTV ? state.tv.vendorText.map { " (TV vendor \($0))" } ?? "" : ""
            log(.notice, "unknown CEC vendor command\(vendor): \(bytes.map(TVMachine.hex).joined(separator: ":"))")
        case .giveOSDName, .giveDeviceVendorID, .reportAudioStatus, .systemAudioModeStatus, .vendorRemoteButtonDown:
            break
        }
    }

    /// <Report Audio Status> with the Cast volume and mute, to `destination`.
    mutating func reportAudio(to destination: UInt8) {
        guard let volume = state.volume, state.tv.connected else { return }
        state.reportedAudio = (volume, state.muted)
        send(.reportAudioStatus(volume: volume, muted: state.muted), to: destination)
    }

    static func hex(_ byte: UInt8) -> String {
        let text = String(byte, radix: 16)
        return text.count == 1 ? "0" + text : text
    }
}
