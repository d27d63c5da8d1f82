import Dispatch
import GatewayModel
import ServiceLifecycle
import SystemSupport

/// Key events straight from a kernel input device (`/dev/input/eventN`): IR
/// decoded by the kernel (`gpio-ir` + `ir-keytable`) or CEC passthrough, for
/// boards without lircd. Key names are the kernel's (`KEY_PLAY`), so the
/// LIRC devinput keymap names work here too.
///
/// The device is a path, or `name:TEXT` to pick the first input device whose
/// name contains TEXT. Run it as a `ReopeningSource` (see `service`): a
/// missing or unplugged device is retried with backoff.
public struct EvdevSource: ReopenableDevice {
    public let device: String
    public let grab: Bool
    private let sink: InputSink
    private let inputDirectory: String

    /// `struct input_event`: two kernel longs (the time), then type (u16),
    /// code (u16) and value (s32): 24 bytes on 64-bit, 16 on 32-bit boards.
    static let timeSize = MemoryLayout<Int>.size * 2
    static let eventSize = timeSize + 8
    static let keyEventType: UInt16 = 1  // EV_KEY

    /// (type, code, value) of the event at `offset`.
    static func parse(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (type: UInt16, code: UInt16, value: Int32) {
        let base = offset + timeSize
        return (UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: base, as: UInt16.self)),
                UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: base + 2, as: UInt16.self)),
                Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: base + 4, as: Int32.self)))
    }

    public init(device: String, grab: Bool, sink: InputSink, inputDirectory: String = "/sys/class/input") {
        self.device = device
        self.grab = grab
        self.sink = sink
        self.inputDirectory = inputDirectory
    }

    /// The source as a service that reopens the device with backoff.
    public func service(timeSource: any TimeSource = SystemTimeSource(),
                        availability: @escaping @Sendable (String?) async -> Void = { _ in }) -> ReopeningSource<EvdevSource> {
        ReopeningSource(name: "evdev", device: self, queue: DispatchQueue(label: "cast-gateway.evdev"), timeSource: timeSource,
                        availability: availability)
    }

    /// The device node for `device` (a path, or `name:TEXT`).
    func resolve() -> String? {
        guard device.hasPrefix("name:") else { return device }
        let wanted = device.dropFirst(5).lowercased()
        var matches: [String] = []
        for name in FileSystem.directoryEntries(inputDirectory) {
            guard name.hasPrefix("event"),
                  let deviceName = try? FileSystem.readText("\(inputDirectory)/\(name)/device/name"),
                  deviceName.lowercased().contains(wanted) else { continue }
            matches.append(name)
        }
        return matches.sorted().first.map { "/dev/input/\($0)" }
    }

    public func open() throws -> FileDescriptor {
        guard let path = resolve() else { throw DeviceProblem.retry("no input device matches \(device)") }
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, .readOnly, options: .nonBlocking)
        } catch {
            throw DeviceProblem.retry("cannot open \(path): \(error.reason)")
        }
        let logger = Logger(label: "evdev")
        if grab {
            do {
                try fd.control(0x4004_4590, 1)  // EVIOCGRAB
            } catch {
                logger.warning("cannot grab \(path) exclusively: \(error.reason); reading it shared")
            }
        }
        logger.notice("reading keys from \(path)\(grab ? " (grabbed)" : "")")
        return fd
    }

    public func serve(_ fd: FileDescriptor, on queue: DispatchQueue) async -> String {
        var pending: [UInt8] = []
        for await event in FileDescriptorReader.events(fd: fd, queue: queue, chunkSize: EvdevSource.eventSize * 64) {
            switch event {
            case .bytes(let bytes):
                pending.append(contentsOf: bytes)
                deliverCompleteEvents(&pending)
            case .ended(let reason):
                return "\(resolve() ?? device) went away (\(reason))"
            }
        }
        return "stopped"
    }

    private func deliverCompleteEvents(_ pending: inout [UInt8]) {
        let size = EvdevSource.eventSize
        var offset = 0
        while pending.count - offset >= size {
            let event = pending.withUnsafeBytes { EvdevSource.parse($0, at: offset) }
            offset += size
            // value 1 = press, 2 = auto-repeat, 0 = release (ignored).
            guard event.type == EvdevSource.keyEventType, event.value == 1 || event.value == 2 else { continue }
            var input = InputEvent(source: .evdev, key: LinuxKeyCodes.name(for: event.code), isRepeat: event.value == 2)
            input.receivedAt = ContinuousClock.now
            sink.yield(input)
        }
        pending.removeFirst(offset)
    }
}
