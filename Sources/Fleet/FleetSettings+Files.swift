#if canImport(Glibc)
import Glibc
#endif
import SystemSupport

extension FleetSettings {
    /// Reads the broker password: the first line of `path`, which only its
    /// owner may read (mode 0600 or 0400). The password is never logged; errors
    /// name the file, never its content.
    public static func readPassword(_ path: String) throws(MQTTError) -> String {
        guard let mode = FileSystem.permissions(of: path) else {
            throw MQTTError(.passwordFile, "password-file \(path) cannot be examined: \(String(cString: strerror(errno)))")
        }
        guard mode & 0o077 == 0 else {
            throw MQTTError(.passwordFile, "password-file \(path) is mode \(octal(mode)), so other users can read the broker password; the gateway refuses it until only its owner can: chmod 600 \(path)")
        }
        let text: String
        do {
            text = try FileSystem.readText(path, limit: 4096)
        } catch {
            throw MQTTError(.passwordFile, "password-file \(path): \(error)")
        }
        var line = Substring(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        if line.hasSuffix("\r") { line = line.dropLast() }
        guard !line.isEmpty else {
            throw MQTTError(.passwordFile, "password-file \(path) is empty; put the password on its first line")
        }
        return String(line)
    }

    /// Checks that a TLS file exists, is readable and looks like PEM, so a
    /// wrong path reads as such instead of as a TLS handshake failure.
    public static func checkPEMFile(_ path: String, what: String) throws(MQTTError) {
        let text: String
        do {
            text = try FileSystem.readText(path, limit: 4 << 20)
        } catch {
            throw MQTTError(.tlsFiles, "\(what) \(path) cannot be read (\(error)); check the path and its permissions")
        }
        guard text.contains("-----BEGIN ") else {
            throw MQTTError(.tlsFiles, "\(what) \(path) is not a PEM file (no '-----BEGIN' line); give the PEM file")
        }
    }

    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
