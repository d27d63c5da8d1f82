import Foundation

/// pychromecast (pinned, from PyPI) in a venv the tests create once under
/// .build, for tests that need a real third-party sender.
enum Pychromecast {
    static let pinnedVersion = "14.0.10"

    /// Creates (once, cached under .build) a venv with the pinned pychromecast.
    static func python() throws -> String {
        let venv = ProcessInfo.processInfo.environment["PYCHROMECAST_VENV"]
            ?? BuildProducts.directory.deletingLastPathComponent().appendingPathComponent("pychromecast-\(Self.pinnedVersion)-venv").path
        let python = venv + "/bin/python"
        let marker = venv + "/.installed"
        if !FileManager.default.fileExists(atPath: marker) {
            for arguments in [["python3", "-m", "venv", venv],
                              [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "pychromecast==\(Self.pinnedVersion)"]] {
                let process = try ManagedProcess("/usr/bin/env", arguments)
                let status = process.waitForExit(timeout: 600)
                guard status == 0 else {
                    throw StartupError(message: "cannot set up pychromecast (\(arguments.joined(separator: " "))): \(process.allOutput)")
                }
            }
            guard FileManager.default.createFile(atPath: marker, contents: Data()) else {
                throw StartupError(message: "cannot write \(marker)")
            }
        }
        return python
    }
}
