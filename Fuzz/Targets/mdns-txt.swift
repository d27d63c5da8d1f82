// fuzz-options: -max_len=8192
//
// What anyone on the LAN can announce: the TXT records of a `_googlecast._tcp`
// service (split on NUL into strings) and its service name, through
// DiscoveryEvent.parseTXT -> ResolvedService.device -> DeviceTable -> the
// `devices` table and its JSON. Properties:
// - no device name, model, id or running app carries a control character,
//   and none is longer than its cap (names are shown on consoles and in logs);
// - the table never lists a service twice, and a removed service is gone.
import GatewayCore
import GatewayModel
import Discovery

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMDNSTXT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Fuzz.bytes(data, size)
    guard let first = bytes.first else { return 0 }
    let parts = Fuzz.split(Array(bytes.dropFirst()), on: [0]).map { String(decoding: $0, as: UTF8.self) }
    guard let serviceName = parts.first else { return 0 }
    let txt = ResolvedService.parseTXT(Array(parts.dropFirst()))
    let service = ResolvedService(serviceName: serviceName, interface: Int32(first % 4), protocolFamily: Int32(first >> 7),
                                  host: first & 1 == 0 ? "192.168.1.20" : "fe80::1", port: 8009, txt: txt)
    var table = DeviceTable()
    table.apply(.resolved(service))
    var twin = service
    twin.protocolFamily = 1 - service.protocolFamily
    table.apply(.resolved(twin))
    let devices = table.devices
    Fuzz.require(devices.count == 1, "one service on two protocols is one device, got \(devices.count)")
    for device in devices {
        for (what, text, cap) in [("name", device.name, 128), ("model", device.model, 128), ("id", device.id, 128),
                                  ("running app", device.runningApp ?? "", 128)] {
            Fuzz.requirePlainLine(text, "the device's \(what)")
            // At most `cap` characters are kept; each may show as an escape of up to 8 (`\\u{9b}`).
            Fuzz.require(text.count <= cap * 8 + 40, "the device's \(what) is not capped: \(text.count) characters")
        }
        Fuzz.use(device.isGroup)
        Fuzz.use(device.capabilities.names)
    }
    for line in DeviceList.table(devices) { Fuzz.requirePlainLine(line, "a `devices` line") }
    Fuzz.use(DeviceList.json(devices))
    table.apply(.removed(serviceName: service.serviceName, interface: service.interface, protocolFamily: service.protocolFamily))
    table.apply(.removed(serviceName: twin.serviceName, interface: twin.interface, protocolFamily: twin.protocolFamily))
    Fuzz.require(table.devices.isEmpty, "a removed service is still listed")
    return 0
}
