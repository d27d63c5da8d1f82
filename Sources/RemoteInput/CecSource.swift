import CCecLoader
import Dispatch
import GatewayModel
import Glibc
import ServiceLifecycle
import SystemSupport

/// HDMI-CEC remote keys and TV control through libcec.
///
/// libcec calls back on its own threads; callbacks only yield events or hop
/// onto this source's queue. Opening and closing the adapter block, so every
/// libcec call runs on that serial queue, never on the cooperative pool, and
/// state confined to it asserts so. Run it as a `ReopeningSource` (see
/// `service`): a missing adapter, or one that disappears, is retried with
/// backoff while the gateway runs on.
public final class CecSource: ReopenableDevice, TVControl, @unchecked Sendable {
    /// How the gateway appears on the CEC bus (see the README for what each sees).
    public enum Role: String, Sendable, CaseIterable {
        /// A playback device: keys arrive while it is the TV's selected source.
        case playback
        /// An audio system (logical address 5): the TV sends volume and mute to it.
        case audioSystem = "audio-system"
        /// Watch all traffic: only with adapters that can monitor the whole bus.
        case monitor
    }

    public let settings: CecSettings
    private let sink: InputSink
    /// What the bus says (power, inputs, audio questions): for the core's TV machine.
    private let bus: AsyncStream<TVBusEvent>.Continuation?
    let queue = DispatchQueue(label: "cast-gateway.cec")
    private let logger = Logger(label: "cec")
    // On `queue` only (callbacks touch only `sink`, `bus`, `queue`, `logger` and the immutable settings):
    private var connection: libcec_connection_t?
    /// A passive second handle on a kernel adapter, watched for its removal.
    private var removalWatch: DispatchSourceRead?
    /// The open session: resumed with the reason the adapter was lost.
    private var sessionEnded: CheckedContinuation<String, Never>?
    private let configuration = UnsafeMutablePointer<libcec_configuration>.allocate(capacity: 1)
    private let callbacks = UnsafeMutablePointer<ICECCallbacks>.allocate(capacity: 1)

    public init(settings: CecSettings, sink: InputSink, bus: AsyncStream<TVBusEvent>.Continuation? = nil) {
        self.settings = settings
        self.sink = sink
        self.bus = bus
        configuration.initialize(to: libcec_configuration())
        callbacks.initialize(to: ICECCallbacks())
    }

    deinit {
        configuration.deallocate()
        callbacks.deallocate()
    }

    /// The source as a service that reopens the adapter with backoff.
    public func service(timeSource: any TimeSource = SystemTimeSource(),
                        availability: @escaping @Sendable (String?) async -> Void = { _ in }) -> ReopeningSource<CecSource> {
        ReopeningSource(name: "cec", device: self, queue: queue, timeSource: timeSource,
                        backoff: Backoff(initial: .seconds(1), maximum: .seconds(60)), availability: availability)
    }

    public func serve(_ handle: Void, on queue: DispatchQueue) async -> String {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    // The adapter may have been lost between open and now.
                    if self.connection == nil {
                        continuation.resume(returning: "CEC adapter connection lost")
                    } else {
                        self.sessionEnded = continuation
                    }
                }
            }
        } onCancel: {
            queue.async { self.endSession("stopped") }
        }
    }

    /// Closes the adapter and tells the reopening loop why.
    private func endSession(_ reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        closeConnection()
        sessionEnded?.resume(returning: reason)
        sessionEnded = nil
    }

    // MARK: TV control (queued; no-ops without an adapter)

    /// Powers the TV on and, when `physicalAddress` is given (e.g. 0x1000 for 1.0.0.0), selects that input.
    public func powerOnTV(selecting physicalAddress: UInt16?) {
        queue.async {
            guard let connection = self.connection else { return }
            _ = cg_cec_power_on_devices(connection, CECDEVICE_TV)
            if let physicalAddress { self.broadcastSetStreamPath(physicalAddress, on: connection) }
        }
    }

    public func standbyTV() {
        queue.async {
            guard let connection = self.connection else { return }
            _ = cg_cec_standby_devices(connection, CECDEVICE_TV)
        }
    }

    public func selectInput(_ physicalAddress: UInt16) {
        queue.async {
            guard let connection = self.connection else { return }
            self.broadcastSetStreamPath(physicalAddress, on: connection)
        }
    }

    /// Sends `message` from the gateway's logical address.
    public func send(_ message: TVBusMessage) {
        queue.async {
            guard let connection = self.connection else { return }
            var command = CecSource.command(for: message)
            command.initiator = cg_cec_get_logical_addresses(connection).primary
            if cg_cec_transmit(connection, &command) != 1 {
                self.logger.info("CEC message \(message.body) to \(message.destination) was not acknowledged")
            }
        }
    }

    /// Broadcasts <Set Stream Path> (opcode 0x86): the TV switches to the
    /// input with that physical address. libcec's own helper only acts on
    /// devices it has already seen, so the message is built here.
    private func broadcastSetStreamPath(_ physicalAddress: UInt16, on connection: libcec_connection_t) {
        var command = cec_command()
        command.initiator = cg_cec_get_logical_addresses(connection).primary
        command.destination = CECDEVICE_BROADCAST
        command.opcode = CEC_OPCODE_SET_STREAM_PATH
        command.opcode_set = 1
        command.transmit_timeout = 1000
        withUnsafeMutableBytes(of: &command.parameters.data) { data in
            data[0] = UInt8(physicalAddress >> 8)
            data[1] = UInt8(physicalAddress & 0xFF)
        }
        command.parameters.size = 2
        if cg_cec_transmit(connection, &command) != 1 {
            logger.warning("could not switch the TV to input \(physicalAddress >> 12).\((physicalAddress >> 8) & 0xF).\((physicalAddress >> 4) & 0xF).\(physicalAddress & 0xF)")
        }
    }

    // MARK: Adapter (on `queue`)

    private func configure() {
        dispatchPrecondition(condition: .onQueue(queue))
        cg_cec_clear_configuration(configuration)
        configuration.pointee.clientVersion = UInt32(LIBCEC_VERSION_CURRENT.rawValue)
        withUnsafeMutableBytes(of: &configuration.pointee.strDeviceName) { buffer in
            let name = Array(settings.osdName.utf8.prefix(buffer.count - 1)) + [0]
            buffer.copyBytes(from: name)
        }
        configuration.pointee.deviceTypes.types.0 = settings.role == .audioSystem
            ? CEC_DEVICE_TYPE_AUDIO_SYSTEM : CEC_DEVICE_TYPE_PLAYBACK_DEVICE
        // Do not steal the TV's input on start, wake nothing, and keep STOP
        // from being delayed or rewritten by the combo-key trap.
        configuration.pointee.bActivateSource = 0
        configuration.pointee.wakeDevices.primary = CECDEVICE_UNKNOWN
        withUnsafeMutableBytes(of: &configuration.pointee.wakeDevices.addresses) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
        configuration.pointee.comboKey = CEC_USER_CONTROL_CODE_UNKNOWN
        configuration.pointee.iComboKeyTimeoutMs = 0
        configuration.pointee.bMonitorOnly = settings.role == .monitor ? 1 : 0
        callbacks.pointee.keyPress = { parameter, key in
            guard let parameter, let key else { return }
            Unmanaged<CecSource>.fromOpaque(parameter).takeUnretainedValue().keyPressed(key.pointee)
        }
        callbacks.pointee.alert = { parameter, alert, _ in
            guard let parameter else { return }
            Unmanaged<CecSource>.fromOpaque(parameter).takeUnretainedValue().alerted(alert)
        }
        callbacks.pointee.commandReceived = { parameter, command in
            guard let parameter, let command else { return }
            Unmanaged<CecSource>.fromOpaque(parameter).takeUnretainedValue().received(command.pointee, through: .commandReceived)
        }
        // libcec 7 also hands every received command to a handler before it
        // acts on it. The gateway takes <Standby> from there: libcec forwards
        // <Standby> to `commandReceived` at most once in 10 s, so a TV put in
        // standby, woken and put in standby again within that time would
        // otherwise keep the cast playing. In the audio-system role the
        // gateway also answers <Give Audio Status> itself (libcec would say
        // "unknown"); libcec 6 answers too, and the gateway repeats its answer.
        _ = cg_cec_set_command_handler(callbacks) { parameter, command in
            guard let parameter, let command else { return 0 }
            let source = Unmanaged<CecSource>.fromOpaque(parameter).takeUnretainedValue()
            source.received(command.pointee, through: .commandHandler)
            return source.answersItself(command.pointee) ? 1 : 0
        }
        configuration.pointee.callbacks = callbacks
        configuration.pointee.callbackParam = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Opens the adapter (blocking, on `queue`); the connection stays confined to `queue`.
    public func open() throws {
        dispatchPrecondition(condition: .onQueue(queue))
        var loadError = [CChar](repeating: 0, count: 256)
        guard cg_cec_load(&loadError, loadError.count) == 1 else {
            throw DeviceProblem.permanent("\(String(nullTerminated: loadError)) for HDMI-CEC")
        }
        configure()
        guard let connection = cg_cec_initialise(configuration) else {
            throw DeviceProblem.retry("libcec could not be initialised")
        }
        var adapters = [cec_adapter_descriptor](repeating: cec_adapter_descriptor(), count: 8)
        let found = Int(cg_cec_detect_adapters(connection, &adapters, UInt8(adapters.count), nil, 0))
        let candidates = Array(adapters.prefix(max(found, 0)))
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let chosen = candidates.first { adapter in
            guard let wanted = settings.adapter else { return true }
            return text(adapter.strComName) == wanted || text(adapter.strComPath) == wanted
                || (wanted.hasPrefix("/dev/cec") && adapter.adapterType == ADAPTERTYPE_LINUX)
        }
        guard let adapter = chosen else {
            cg_cec_destroy(connection)
            throw DeviceProblem.retry(settings.adapter.map { "no CEC adapter \($0) found" } ?? "no CEC adapter found")
        }
        if settings.role == .monitor, adapter.adapterType == ADAPTERTYPE_LINUX {
            cg_cec_destroy(connection)
            throw DeviceProblem.permanent("the monitor role needs an adapter that can monitor all CEC traffic (Pulse-Eight USB or cec-gpio); the kernel CEC adapter cannot. Use role = playback or audio-system")
        }
        let port = text(adapter.strComName)
        guard cg_cec_open(connection, port, 10_000) == 1 else {
            cg_cec_destroy(connection)
            throw DeviceProblem.retry("cannot open CEC adapter \(port)")
        }
        logger.notice("CEC adapter \(port) open as \(settings.role.rawValue) \"\(settings.osdName)\"")
        self.connection = connection
        if adapter.adapterType == ADAPTERTYPE_LINUX { watchForRemoval(of: text(adapter.strComPath)) }
        let logical = cg_cec_get_logical_addresses(connection).primary
        let physical = cg_cec_get_device_physical_address(connection, logical)
        bus?.yield(.opened(physicalAddress: physical, logicalAddress: UInt8(truncatingIfNeeded: logical.rawValue)))
    }

    /// libcec reports a USB adapter's loss, but not a kernel adapter going away
    /// (its driver unbound, a USB-CEC dongle unplugged). When the device node
    /// is removed, inotify tells; a passive handle on the device (no follower,
    /// so nothing queues on it) then confirms the adapter is gone: the kernel
    /// answers poll() with POLLERR|POLLHUP on every handle of a removed adapter.
    /// (Dispatch is not given the device's own handle: it cannot disarm HUP.)
    private func watchForRemoval(of path: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        let probe: FileDescriptor, notify: FileDescriptor
        do {
            (probe, notify) = try CecSource.openRemovalWatch(path)
        } catch {
            logger.debug("cannot watch \(path) for removal: \(error.reason)")
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: notify.rawValue, queue: queue)
        source.setEventHandler { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 1024)
            while ((try? notify.read(into: &buffer)) ?? 0) > 0 {}  // drain: the events only say "look"
            var entry = pollfd(fd: probe.rawValue, events: Int16(POLLIN), revents: 0)
            guard let self, Glibc.poll(&entry, 1, 0) >= 0, entry.revents & Int16(POLLERR | POLLHUP) != 0 else { return }
            self.endSession("CEC adapter \(path) went away (driver unbound or adapter unplugged)")
        }
        source.setCancelHandler {
            notify.close()
            probe.close()
        }
        source.resume()
        removalWatch = source
    }

    /// A passive handle on the device node, and an inotify descriptor watching it.
    private static func openRemovalWatch(_ path: String) throws(SystemError) -> (probe: FileDescriptor, notify: FileDescriptor) {
        let probe = try FileDescriptor.open(path, .readOnly, options: .nonBlocking)
        let watcher = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard watcher >= 0 else {
            let error = SystemError.current("inotify_init1")
            probe.close()
            throw error
        }
        guard inotify_add_watch(watcher, path, UInt32(IN_ATTRIB | IN_DELETE_SELF)) >= 0 else {
            let error = SystemError.current("inotify_add_watch")
            probe.close()
            _ = Glibc.close(watcher)
            throw error
        }
        return (probe, FileDescriptor(rawValue: watcher))
    }

    private func closeConnection() {
        dispatchPrecondition(condition: .onQueue(queue))
        removalWatch?.cancel()
        removalWatch = nil
        guard let connection else { return }
        cg_cec_close(connection)
        cg_cec_destroy(connection)
        self.connection = nil
        bus?.yield(.closed)
    }

    // MARK: Callbacks (libcec's threads)

    private func keyPressed(_ key: cec_keypress) {
        // duration 0 is the press; releases (duration > 0) are not reliable and not needed.
        guard key.duration == 0 else { return }
        let code = UInt8(truncatingIfNeeded: key.keycode.rawValue)
        var event = InputEvent(source: .cec, key: CecKeyCodes.name(for: code))
        event.receivedAt = ContinuousClock.now
        sink.yield(event)
    }

    /// Every command libcec received: vendor keys become key events, the
    /// rest goes to the core as values (copied here: libcec reuses the struct).
    /// Which libcec callback delivered a command.
    enum Delivery { case commandReceived, commandHandler }

    /// <Standby> comes through the command handler where libcec has one (it
    /// is not rate-limited there); everything else through `commandReceived`.
    static func takes(opcode: cec_opcode, through delivery: Delivery, handlerAvailable: Bool) -> Bool {
        let standbyFromHandler = handlerAvailable && opcode == CEC_OPCODE_STANDBY
        return delivery == .commandHandler ? standbyFromHandler : !standbyFromHandler
    }

    private static let handlerAvailable = cg_cec_has_command_handler() == 1

    /// What the gateway answers instead of libcec: <Give Audio Status> to the audio system, in that role.
    private func answersItself(_ command: cec_command) -> Bool {
        settings.role == .audioSystem && command.opcode == CEC_OPCODE_GIVE_AUDIO_STATUS && command.destination == CECDEVICE_AUDIOSYSTEM
    }

    private func received(_ command: cec_command, through delivery: Delivery) {
        guard CecSource.takes(opcode: command.opcode, through: delivery, handlerAvailable: CecSource.handlerAvailable),
              let message = CecSource.message(from: command) else { return }
        if case .vendorRemoteButtonDown(let codes) = message.body {
            guard let code = codes.first else { return }
            var event = InputEvent(source: .cec, key: CecKeyCodes.vendorName(for: code))
            event.receivedAt = ContinuousClock.now
            sink.yield(event)
            return
        }
        bus?.yield(.received(message))
    }

    private func alerted(_ alert: libcec_alert) {
        guard alert == CEC_ALERT_CONNECTION_LOST else { return }
        queue.async { self.endSession("CEC adapter connection lost") }
    }
}

/// CEC user-control codes and libcec's names for them.
enum CecKeyCodes {
    static let names: [UInt8: String] = {
        var map: [UInt8: String] = [
            0x00: "SELECT", 0x01: "UP", 0x02: "DOWN", 0x03: "LEFT", 0x04: "RIGHT", 0x05: "RIGHT_UP", 0x06: "RIGHT_DOWN",
            0x07: "LEFT_UP", 0x08: "LEFT_DOWN", 0x09: "ROOT_MENU", 0x0A: "SETUP_MENU", 0x0B: "CONTENTS_MENU",
            0x0C: "FAVORITE_MENU", 0x0D: "EXIT", 0x10: "TOP_MENU", 0x11: "DVD_MENU", 0x1D: "NUMBER_ENTRY_MODE",
            0x1E: "NUMBER11", 0x1F: "NUMBER12", 0x2A: "DOT", 0x2B: "ENTER", 0x2C: "CLEAR", 0x2F: "NEXT_FAVORITE",
            0x30: "CHANNEL_UP", 0x31: "CHANNEL_DOWN", 0x32: "PREVIOUS_CHANNEL", 0x33: "SOUND_SELECT", 0x34: "INPUT_SELECT",
            0x35: "DISPLAY_INFORMATION", 0x36: "HELP", 0x37: "PAGE_UP", 0x38: "PAGE_DOWN", 0x40: "POWER",
            0x41: "VOLUME_UP", 0x42: "VOLUME_DOWN", 0x43: "MUTE", 0x44: "PLAY", 0x45: "STOP", 0x46: "PAUSE",
            0x47: "RECORD", 0x48: "REWIND", 0x49: "FAST_FORWARD", 0x4A: "EJECT", 0x4B: "FORWARD", 0x4C: "BACKWARD",
            0x4D: "STOP_RECORD", 0x4E: "PAUSE_RECORD", 0x50: "ANGLE", 0x51: "SUB_PICTURE", 0x52: "VIDEO_ON_DEMAND",
            0x53: "ELECTRONIC_PROGRAM_GUIDE", 0x54: "TIMER_PROGRAMMING", 0x55: "INITIAL_CONFIGURATION",
            0x56: "SELECT_BROADCAST_TYPE", 0x57: "SELECT_SOUND_PRESENTATION", 0x60: "PLAY_FUNCTION",
            0x61: "PAUSE_PLAY_FUNCTION", 0x62: "RECORD_FUNCTION", 0x63: "PAUSE_RECORD_FUNCTION", 0x64: "STOP_FUNCTION",
            0x65: "MUTE_FUNCTION", 0x66: "RESTORE_VOLUME_FUNCTION", 0x67: "TUNE_FUNCTION", 0x68: "SELECT_MEDIA_FUNCTION",
            0x69: "SELECT_AV_INPUT_FUNCTION", 0x6A: "SELECT_AUDIO_INPUT_FUNCTION", 0x6B: "POWER_TOGGLE_FUNCTION",
            0x6C: "POWER_OFF_FUNCTION", 0x6D: "POWER_ON_FUNCTION", 0x71: "F1_BLUE", 0x72: "F2_RED", 0x73: "F3_GREEN",
            0x74: "F4_YELLOW", 0x75: "F5", 0x76: "DATA", 0x91: "AN_RETURN", 0x96: "AN_CHANNELS_LIST",
        ]
        for digit in 0...9 { map[0x20 + UInt8(digit)] = "NUMBER\(digit)" }
        return map
    }()

    static func name(for code: UInt8) -> String { names[code] ?? "CEC_\(code)" }

    /// A vendor's own remote key (<Vendor Remote Button Down>, which libcec
    /// passes on without a name): `VENDOR_91` for code 0x91.
    static func vendorName(for code: UInt8) -> String { RemoteKeyNames.vendorKey(code) }
}
