#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

/// Opens a tty for the console: raw input, 8N1, the given speed, no modem
/// control (CLOCAL: a missing carrier never hangs the line up), non-blocking.
public enum SerialPort {
    /// Standard speeds and their termios constants.
    static let speeds: [Int: speed_t] = [
        9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115_200: speed_t(B115200), 230_400: speed_t(B230400), 460_800: speed_t(B460800), 921_600: speed_t(B921600),
    ]

    public static func open(_ path: String, baud: Int) throws -> FileDescriptor {
        guard let speed = speeds[baud] else { throw SystemError("unsupported baud rate \(baud) for \(path)", errno: EINVAL) }
        let fd = try FileDescriptor.open(path, .readWrite, options: [.noControllingTerminal, .nonBlocking])
        var settings = termios()
        guard tcgetattr(fd.rawValue, &settings) == 0 else {
            let error = SystemError.current("\(path) is not a terminal")
            fd.close()
            throw error
        }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL) | tcflag_t(CREAD) | tcflag_t(CS8)
        settings.c_cflag &= ~(tcflag_t(PARENB) | tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        withUnsafeMutableBytes(of: &settings.c_cc) { controls in
            controls[Int(VMIN)] = 1
            controls[Int(VTIME)] = 0
        }
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        guard tcsetattr(fd.rawValue, TCSANOW, &settings) == 0 else {
            let error = SystemError.current("configure \(path)")
            fd.close()
            throw error
        }
        return fd
    }
}
