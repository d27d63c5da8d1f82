#if canImport(Glibc)
import Glibc
#endif

/// Program output (not logs) on standard output, written unbuffered with
/// `write(2)` so a reading script sees each line at once.
public enum StandardOutput {
    /// Writes `text` plus a newline.
    public static func line(_ text: String) {
        write(text + "\n")
    }

    /// Writes `text` as is.
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(1, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
