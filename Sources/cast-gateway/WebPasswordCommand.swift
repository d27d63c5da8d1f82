import Glibc
import SystemSupport
import WebInterface

/// `cast-gateway web-password PATH`: reads the web interface's password as
/// one line from standard input and writes its salted PBKDF2 hash to PATH
/// (mode 0600). Neither the password nor the hash is printed.
func webPasswordCommand(_ arguments: inout ArgumentReader) throws -> Int32 {
    let positionals = try arguments.finish(maximumPositionals: 1)
    guard let path = positionals.first else { throw UsageError("web-password needs a PATH (e.g. /etc/cast-gateway/web-password)") }
    // Typed at a terminal: not echoed (a pipe or a file is read as it is).
    let line = isatty(STDIN_FILENO) == 1 ? readLineWithoutEcho(prompt: "password: ") : readLine(strippingNewline: true)
    guard let line else {
        StandardOutput.line("error: no password on standard input; give it as one line, e.g. from a file or a pipe")
        return ExitCode.usage
    }
    let password = line.hasSuffix("\r") ? String(line.dropLast()) : line
    guard password.count >= 8 else {
        StandardOutput.line("error: the password is shorter than 8 characters; a guest on the network can guess it. Choose a longer one")
        return ExitCode.usage
    }
    do {
        let hash = try PasswordHash(hashing: password)
        try FileSystem.writeAtomically(path, bytes: Array((hash.encoded + "\n").utf8), mode: 0o600)
    } catch {
        StandardOutput.line("error: the password hash was not written to \(path): \(error)")
        return ExitCode.failure
    }
    StandardOutput.line("\(path): password hash written (mode 0600); set [web] password-file = \(path)")
    return ExitCode.ok
}

/// One line from the terminal on standard input with its echo off, restored after.
private func readLineWithoutEcho(prompt: String) -> String? {
    var saved = termios()
    guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return readLine(strippingNewline: true) }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO)
    StandardOutput.write(prompt)
    _ = tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
    defer {
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        StandardOutput.line("")
    }
    return readLine(strippingNewline: true)
}
