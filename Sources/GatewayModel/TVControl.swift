/// Talking to the TV (HDMI-CEC). Implemented by the CEC source and handed to
/// the core, which decides when; the core knows nothing of libcec.
public protocol TVControl: Sendable {
    /// Powers the TV on and, given a physical address (0x1000 = 1.0.0.0), selects that input.
    func powerOnTV(selecting physicalAddress: UInt16?)
    func standbyTV()
    /// Switches the TV to the input with this physical address (<Set Stream Path>), without powering it on.
    func selectInput(_ physicalAddress: UInt16)
    /// Sends one message as the gateway's logical address (the initiator is filled in).
    func send(_ message: TVBusMessage)
}
