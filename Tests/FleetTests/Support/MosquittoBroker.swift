import Foundation
import XCTest

/// A `mosquitto` of the test's own, on 127.0.0.1 only, with a generated
/// config; stopped by pid. Restartable on the same port with its
/// persistence directory, so sessions survive a restart.
final class MosquittoBroker: @unchecked Sendable {
    struct TLSFiles {
        var ca: String
        var certificate: String
        var key: String
    }

    let port: UInt16
    let directory: String
    private(set) var process: ChildProcess?

    /// - Parameters:
    ///   - users: name → password; nil allows anonymous clients.
    ///   - extra: more lines for mosquitto.conf (`require_certificate true`...).
    init(directory: String, users: [String: String]? = nil, tls: TLSFiles? = nil, extra: [String] = []) throws {
        self.directory = directory
        port = try freeLoopbackPort()
        var config = [
            "listener \(port) 127.0.0.1",
            "persistence true",
            "persistence_location \(directory)/",
            "log_dest file \(directory)/mosquitto.log",
            "log_type all",
            "connection_messages true",
        ]
        // Run as whoever runs the tests (mosquitto would drop root to its own user).
        if let user = getpwuid(getuid())?.pointee.pw_name { config.append("user \(String(cString: user))") }
        if let users {
            let passwordFile = directory + "/passwords"
            _ = FileManager.default.createFile(atPath: passwordFile, contents: nil, attributes: [.posixPermissions: 0o600])
            for (name, password) in users {
                let tool = try ChildProcess("mosquitto_passwd", ["-b", passwordFile, name, password], outputPath: directory + "/passwd.out")
                XCTAssertEqual(tool.waitForExit(timeout: 10), 0, "mosquitto_passwd: \(tool.output)")
            }
            config += ["allow_anonymous false", "password_file \(passwordFile)"]
        } else {
            config.append("allow_anonymous true")
        }
        if let tls {
            config += ["cafile \(tls.ca)", "certfile \(tls.certificate)", "keyfile \(tls.key)"]
        }
        config += extra
        try (config.joined(separator: "\n") + "\n").write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
    }

    deinit { process?.stop(signal: SIGKILL) }

    var url: String { "mqtt://127.0.0.1:\(port)" }

    func start() throws {
        let process = try ChildProcess("mosquitto", ["-c", directory + "/mosquitto.conf"], outputPath: directory + "/mosquitto.out")
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while !isListening(port), process.isRunning, Date() < deadline { usleep(10_000) }
        guard isListening(port) else {
            process.stop(signal: SIGKILL)
            throw NSError(domain: "mosquitto", code: 1, userInfo: [NSLocalizedDescriptionKey: "mosquitto did not start: \(process.output) \(log)"])
        }
    }

    /// Stops it by pid; TERM lets it save its persistence file.
    func stop() {
        process?.stop(signal: SIGTERM)
        process = nil
    }

    var log: String { (try? String(contentsOfFile: directory + "/mosquitto.log", encoding: .utf8)) ?? "" }
}

/// The broker seen from outside, through the mosquitto-clients tools.
struct BrokerObserver {
    let broker: MosquittoBroker
    var user: (name: String, password: String)?

    private var credentials: [String] {
        guard let user else { return [] }
        return ["-u", user.name, "-P", user.password]
    }

    /// The retained message on `topic` as a new subscriber gets it, or nil.
    func retained(_ topic: String) throws -> String? {
        let out = broker.directory + "/sub-\(UUID().uuidString).out"
        let sub = try ChildProcess("mosquitto_sub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", topic, "-C", "1", "-W", "1",
                                                     "--retained-only", "-F", "%p"] + credentials, outputPath: out)
        _ = sub.waitForExit(timeout: 10)
        let text = sub.output
        guard !text.isEmpty else { return nil }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Waits (real time) until the retained message on `topic` satisfies `match`.
    func waitForRetained(_ topic: String, timeout: TimeInterval = 10, where match: (String) -> Bool) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        var last: String?
        repeat {
            last = try retained(topic)
            if let last, match(last) { return last }
        } while Date() < deadline
        return nil
    }

    /// Publishes `payload` at QoS 1 (from a file, so binary and large payloads go as they are).
    func publish(_ topic: String, _ payload: [UInt8], retain: Bool = false) throws {
        let file = broker.directory + "/pub-\(UUID().uuidString).bin"
        _ = FileManager.default.createFile(atPath: file, contents: Data(payload))
        let pub = try ChildProcess("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", topic, "-f", file]
                                   + (retain ? ["-r"] : []) + credentials, outputPath: file + ".out")
        XCTAssertEqual(pub.waitForExit(timeout: 10), 0, "mosquitto_pub: \(pub.output)")
    }

    func publish(_ topic: String, _ text: String) throws { try publish(topic, Array(text.utf8)) }

    /// Publishes the file at `path` at QoS 1 (mosquitto_pub reads it; this process does not).
    func publishFile(_ topic: String, _ path: String) throws {
        let pub = try ChildProcess("mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", topic, "-f", path]
                                   + credentials, outputPath: path + ".pub.out")
        XCTAssertEqual(pub.waitForExit(timeout: 60), 0, "mosquitto_pub: \(pub.output)")
    }

    /// A subscriber running in the background: `lines` are `topic payload`.
    func subscribe(_ filter: String) throws -> ChildProcess {
        let out = broker.directory + "/watch-\(UUID().uuidString).out"
        let before = broker.log.components(separatedBy: filter).count
        let sub = try ChildProcess("stdbuf", ["-oL", "mosquitto_sub", "-h", "127.0.0.1", "-p", "\(broker.port)", "-t", filter, "-q", "1",
                                              "-v"] + credentials, outputPath: out)
        // Subscribed once the broker's log says so.
        let deadline = Date().addingTimeInterval(10)
        while broker.log.components(separatedBy: filter).count <= before, Date() < deadline { usleep(10_000) }
        return sub
    }
}

extension ChildProcess {
    var lines: [String] { output.split(separator: "\n").map(String.init) }
}
