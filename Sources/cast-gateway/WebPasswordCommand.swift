import SystemSupport
import WebInterface

/// `cast-gateway web-password PATH`: reads the web interface's password as
/// one line from standard input and writes its salted PBKDF2 hash to PATH
/// (mode 0600). Neither the password nor the hash is printed.
func webPasswordCommand(_ arguments: inout ArgumentReader) throws -> Int32 {
    let positionals = try arguments.finish(maximumPositionals: 1)
    guard let path = positionals.first else { throw UsageError("web-password needs a PATH (e.g. /etc/cast-gateway/web-password)") }
    guard let line = readLine(strippingNewline: true) else {
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
