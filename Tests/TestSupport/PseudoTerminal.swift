#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// A pseudo-terminal pair; the console opens the slave through a symlink,
/// like /dev/serial0 -> ttyS0.
public final class PseudoTerminal {
    public let master: Int32
    public let slavePath: String
    private var output = [UInt8]()

    public init() throws {
        var master: Int32 = -1, slave: Int32 = -1
        guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw SystemError.current("openpty") }
        var name = [CChar](repeating: 0, count: 128)
        ttyname_r(slave, &name, name.count)
        self.master = master
        slavePath = String(nullTerminated: name)
        close(slave)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(master) }

    public func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    public func typeBytes(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Everything the console wrote so far.
    public var text: String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { break }
            output += buffer[0..<count]
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Waits for `fragment` in what was written after the first `offset` characters.
    public func waitFor(_ fragment: String, after offset: Int, timeout: Duration = .seconds(5)) async -> Bool {
        await eventually(timeout: timeout) { String(self.text.dropFirst(offset)).contains(fragment) }
    }

    public func waitFor(_ fragment: String, timeout: Duration = .seconds(5)) async -> Bool {
        await eventually(timeout: timeout) { self.text.contains(fragment) }
    }
}

