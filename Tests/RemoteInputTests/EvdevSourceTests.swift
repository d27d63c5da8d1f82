#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GatewayModel
import TestSupport
import XCTest
@testable import RemoteInput

final class EvdevSourceTests: XCTestCase {
    /// One `struct input_event` as the kernel writes it.
    private func event(type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: EvdevSource.timeSize)
        withUnsafeBytes(of: type.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: code.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
        return bytes
    }

    func testKeyPressesAndRepeatsAreDeliveredReleasesAndOtherEventsSkipped() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("evdev-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("event0").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let (events, sink) = InputEvent.makeStream()
        let source = RunningService(EvdevSource(device: fifo, grab: false, sink: sink).service())
        defer { source.cancel() }
        let writer = open(fifo, O_WRONLY)  // blocks until the source has opened it
        XCTAssertGreaterThanOrEqual(writer, 0)
        defer { close(writer) }
        let stream: [UInt8] = event(type: 1, code: 164, value: 1) + event(type: 0, code: 0, value: 0)  // KEY_PLAYPAUSE + SYN
            + event(type: 1, code: 164, value: 0)                                                    // release
            + event(type: 4, code: 4, value: 0x0408)                                                 // MSC_SCAN
            + event(type: 1, code: 115, value: 1) + event(type: 1, code: 115, value: 2)              // KEY_VOLUMEUP, repeat
            + event(type: 1, code: 999, value: 1)                                                    // an unknown code
        // Write in two uneven pieces: events may straddle reads.
        _ = stream.withUnsafeBytes { write(writer, $0.baseAddress, 30) }
        try await Task.sleep(for: .milliseconds(50))
        _ = stream.withUnsafeBytes { write(writer, $0.baseAddress! + 30, $0.count - 30) }
        var received: [InputEvent] = []
        for await event in events {
            received.append(event)
            if received.count == 4 { break }
        }
        XCTAssertEqual(received.map(\.key), ["KEY_PLAYPAUSE", "KEY_VOLUMEUP", "KEY_VOLUMEUP", "KEY_999"])
        XCTAssertEqual(received.map(\.isRepeat), [false, false, true, false])
        XCTAssertTrue(received.allSatisfy { $0.source == .evdev && $0.receivedAt != nil })
        // The reader stops before the writer closes. The other order ends the
        // read source on the FIFO's hang-up while Dispatch's event thread is
        // still delivering it: a race in libdispatch's epoll bookkeeping (as in
        // swift-corelibs-libdispatch issues 833 and 949) that once crashed this
        // test process under load.
        await source.stop()
    }

    func testDevicesAreFoundByName() throws {
        let sysfs = FileManager.default.temporaryDirectory.appendingPathComponent("input-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: sysfs) }
        for (event, name) in [("event2", "vivid-000-vid-cap\n"), ("event5", "gpio_ir_recv\n"), ("event7", "rc-loopback\n")] {
            let device = sysfs.appendingPathComponent(event).appendingPathComponent("device")
            try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
            try name.write(to: device.appendingPathComponent("name"), atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(EvdevSource(device: "name:gpio_ir", grab: false, sink: InputEvent.makeStream().sink, inputDirectory: sysfs.path).resolve(), "/dev/input/event5")
        XCTAssertEqual(EvdevSource(device: "name:LOOPBACK", grab: false, sink: InputEvent.makeStream().sink, inputDirectory: sysfs.path).resolve(), "/dev/input/event7")
        XCTAssertNil(EvdevSource(device: "name:nothing", grab: false, sink: InputEvent.makeStream().sink, inputDirectory: sysfs.path).resolve())
        XCTAssertEqual(EvdevSource(device: "/dev/input/by-path/ir-event", grab: true, sink: InputEvent.makeStream().sink).resolve(), "/dev/input/by-path/ir-event")
    }
}
