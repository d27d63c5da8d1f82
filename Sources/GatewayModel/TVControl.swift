/// Switching the TV on and off (HDMI-CEC). Implemented by the CEC source and
/// handed to the core, which decides when; the core knows nothing of libcec.
public protocol TVControl: Sendable {
    /// Powers the TV on and, given a physical address (0x1000 = 1.0.0.0), selects that input.
    func powerOnTV(selecting physicalAddress: UInt16?)
    func standbyTV()
}
