/// The HDMI-CEC messages the gateway reads and writes, as values: the CEC
/// source turns libcec's `cec_command` into these and back, the core reasons
/// about them, and neither side knows the other's types.
public struct TVBusMessage: Sendable, Equatable {
    /// CEC logical addresses (0 TV, 4 playback, 5 audio system, 15 broadcast).
    public static let tv: UInt8 = 0
    public static let audioSystem: UInt8 = 5
    public static let broadcast: UInt8 = 15

    public enum Body: Sendable, Equatable {
        /// <Standby> (0x36).
        case standby
        /// <Report Power Status> (0x90).
        case reportPowerStatus(TVPower)
        /// <Active Source> (0x82): the source with this physical address is shown.
        case activeSource(UInt16)
        /// <Routing Change> (0x80): the TV (or a switch) moved from one input to another.
        case routingChange(from: UInt16, to: UInt16)
        /// <Set Stream Path> (0x86): show this physical address.
        case setStreamPath(UInt16)
        /// <Request Active Source> (0x85).
        case requestActiveSource
        /// <Device Vendor ID> (0x87).
        case deviceVendorID(UInt32)
        /// <Set OSD Name> (0x47).
        case setOSDName(String)
        /// <Give OSD Name> (0x46), <Give Device Vendor ID> (0x8C), <Give Device Power Status> (0x8F).
        case giveOSDName
        case giveDeviceVendorID
        case giveDevicePowerStatus
        /// <Give Audio Status> (0x71) and its answer <Report Audio Status> (0x7A): volume 0-100, mute bit.
        case giveAudioStatus
        case reportAudioStatus(volume: Int, muted: Bool)
        /// <System Audio Mode Request> (0x70): with the address of the source to hear (on), without (off).
        case systemAudioModeRequest(UInt16?)
        /// <Give System Audio Mode Status> (0x7D) and <System Audio Mode Status> (0x7E).
        case giveSystemAudioModeStatus
        case systemAudioModeStatus(Bool)
        /// <Set System Audio Mode> (0x72).
        case setSystemAudioMode(Bool)
        /// <Vendor Command> (0x89), <Vendor Command With ID> (0xA0): kept as the raw bytes.
        case vendorCommand(opcode: UInt8, parameters: [UInt8])
        /// <Vendor Remote Button Down> (0x8A): the vendor's key code(s).
        case vendorRemoteButtonDown([UInt8])
    }

    public var initiator: UInt8
    public var destination: UInt8
    public var body: Body

    public init(from initiator: UInt8, to destination: UInt8, _ body: Body) {
        self.initiator = initiator
        self.destination = destination
        self.body = body
    }
}

/// A device's power state as CEC reports it.
public enum TVPower: String, Sendable, Equatable {
    case on
    case standby
    /// In transition (standby to on, on to standby): reported as the state it is heading for.
    case unknown

    /// <Report Power Status>'s operand: 0 on, 1 standby, 2 standby to on, 3 on to standby.
    public init(cecStatus: UInt8) {
        switch cecStatus {
        case 0, 2: self = .on
        case 1, 3: self = .standby
        default: self = .unknown
        }
    }

    public var cecStatus: UInt8 { self == .standby ? 1 : 0 }
}

/// What the CEC source reports from the bus.
public enum TVBusEvent: Sendable, Equatable {
    /// The adapter is open: the gateway's own physical address (0xFFFF: unknown) and logical address.
    case opened(physicalAddress: UInt16, logicalAddress: UInt8)
    /// The adapter is closed or lost: nothing is known about the TV any more.
    case closed
    case received(TVBusMessage)
}

/// A physical address as CEC writes it: `2.0.0.0`.
public func physicalAddressText(_ address: UInt16) -> String {
    "\(address >> 12).\((address >> 8) & 0xF).\((address >> 4) & 0xF).\(address & 0xF)"
}

/// Parses `2.0.0.0` (four hex nibbles) into 0x2000.
public func parsePhysicalAddress(_ text: String) -> UInt16? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { UInt16($0, radix: 16) }
    guard parts.count == 4, parts.allSatisfy({ ($0 ?? 16) <= 0xF }) else { return nil }
    return parts.reduce(UInt16(0)) { $0 << 4 | ($1 ?? 0) }
}
