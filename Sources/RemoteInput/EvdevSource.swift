#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import GatewayModel
import SystemSupport

/// Key events straight from a kernel input device (`/dev/input/eventN`): IR
/// decoded by the kernel (`gpio-ir` + `ir-keytable`) or CEC passthrough, for
/// boards without lircd. Key names are the kernel's (`KEY_PLAY`), so the
/// LIRC devinput keymap names work here too.
///
/// The device is a path, or `name:TEXT` to pick the first input device whose
/// name contains TEXT. A missing or unplugged device is retried with backoff.
public final class EvdevSource: @unchecked Sendable {
    public let events: AsyncStream<InputEvent>
    public let device: String
    public let grab: Bool
    private let continuation: AsyncStream<InputEvent>.Continuation
    private let availability: @Sendable (String?) -> Void
    private let queue = DispatchQueue(label: "cast-gateway.evdev")
    private let logger = Logger(label: "evdev")
    private let inputDirectory: String
    // On `queue` only:
    private var source: DispatchSourceRead?
    private var pending: [UInt8] = []
    private var backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30))
    private var stopped = false
    private var recurring = RecurringProblem()

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

    public init(device: String, grab: Bool, inputDirectory: String = "/sys/class/input",
                availability: @escaping @Sendable (String?) -> Void = { _ in }) {
        self.device = device
        self.grab = grab
        self.inputDirectory = inputDirectory
        self.availability = availability
        (events, continuation) = AsyncStream.makeStream(of: InputEvent.self)
    }

    public func start() { queue.async { self.open() } }

    public func stop() {
        queue.async {
            self.stopped = true
            self.source?.cancel()
            self.source = nil
            self.continuation.finish()
        }
    }

    /// The device node for `device` (a path, or `name:TEXT`).
    func resolve() -> String? {
        guard device.hasPrefix("name:") else { return device }
        let wanted = device.dropFirst(5).lowercased()
        guard let directory = opendir(inputDirectory) else { return nil }
        defer { closedir(directory) }
        var matches: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("event"),
                  let deviceName = try? FileSystem.readText("\(inputDirectory)/\(name)/device/name"),
                  deviceName.lowercased().contains(wanted) else { continue }
            matches.append(name)
        }
        return matches.sorted().first.map { "/dev/input/\($0)" }
    }

    private func open() {
        guard !stopped else { return }
        guard let path = resolve() else {
            retry(problem: "no input device matches \(device)")
            return
        }
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            retry(problem: "cannot open \(path): \(String(cString: strerror(errno)))")
            return
        }
        if grab, ioctl(fd, 0x4004_4590, 1) != 0 {  // EVIOCGRAB
            logger.warning("cannot grab \(path) exclusively: \(String(cString: strerror(errno))); reading it shared")
        }
        logger.notice("reading keys from \(path)\(grab ? " (grabbed)" : "")")
        recurring.clear()
        backoff.reset()
        availability(nil)
        pending.removeAll()
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { self.readAvailable(fd, path: path) }
        source.setCancelHandler { close(fd) }
        self.source = source
        source.resume()
    }

    private func retry(problem: String) {
        recurring.report(problem + "; retrying", to: logger)
        availability(problem)
        let delay = backoff.nextDelay()
        queue.asyncAfter(deadline: .now() + delay.seconds) { self.open() }
    }

    private func readAvailable(_ fd: Int32, path: String) {
        var buffer = [UInt8](repeating: 0, count: EvdevSource.eventSize * 64)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count > 0 {
                pending.append(contentsOf: buffer[0..<count])
                deliverCompleteEvents()
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            source?.cancel()
            source = nil
            retry(problem: "\(path) went away (\(count == 0 ? "end of file" : String(cString: strerror(errno))))")
            return
        }
    }

    private func deliverCompleteEvents() {
        let size = EvdevSource.eventSize
        var offset = 0
        while pending.count - offset >= size {
            let event = pending.withUnsafeBytes { EvdevSource.parse($0, at: offset) }
            offset += size
            // value 1 = press, 2 = auto-repeat, 0 = release (ignored).
            guard event.type == EvdevSource.keyEventType, event.value == 1 || event.value == 2 else { continue }
            var input = InputEvent(source: .evdev, key: LinuxKeyCodes.name(for: event.code), isRepeat: event.value == 2)
            input.receivedAt = ContinuousClock.now
            continuation.yield(input)
        }
        pending.removeFirst(offset)
    }
}
