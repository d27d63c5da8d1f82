/// Program output (not logs) on standard output, written unbuffered with
/// `write(2)` so a reading script sees each line at once.
public enum StandardOutput {
    /// Writes `text` plus a newline.
    public static func line(_ text: String) {
        write(text + "\n")
    }

    /// Writes `text` as is.
    public static func write(_ text: String) {
        try? FileDescriptor.standardOutput.writeAll(Array(text.utf8))
    }
}
