import CastProtocol
import Foundation
import JSON
import XCTest

struct StartupError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A `cast-receiver-sim` on a loopback port with a message log.
final class SimulatorProcess {
    let process: ManagedProcess
    let port: Int
    let logURL: URL

    /// Starts the simulator (port 0: any free port) and waits until it listens.
    init(directory: URL, port: Int = 0, logName: String = "sim.jsonl", extraArguments: [String] = [],
         environment: [String: String] = [:]) throws {
        logURL = directory.appendingPathComponent(logName)
        process = try ManagedProcess(BuildProducts.path("cast-receiver-sim"),
                                     ["--port", String(port), "--log", logURL.path, "--ping-interval", "5"] + extraArguments,
                                     environment: environment)
        guard let line = process.waitForLine(timeout: 10, where: { $0.hasPrefix("listening ") }),
              let bound = Int(line.split(separator: " ")[2]) else {
            process.stop()
            throw StartupError(message: "cast-receiver-sim did not start: \(process.allOutput)")
        }
        self.port = bound
    }

    var device: String { "127.0.0.1:\(port)" }

    /// Runs a control command on the simulator's stdin and returns its answer.
    @discardableResult
    func control(_ command: String) -> String? {
        let before = process.stdout.count
        process.send(command)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let lines = process.stdout
            if lines.count > before { return lines[before] }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }

    /// Every message the simulator received: (namespace, destination, raw payload text).
    func received() -> [(namespace: String, destination: String, text: String)] {
        guard let data = try? String(contentsOf: logURL, encoding: .utf8) else { return [] }
        return data.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONValue(parsing: String(line)), let text = entry["data"]?.stringValue else { return nil }
            return (entry["namespace"]?.stringValue ?? "", entry["destination"]?.stringValue ?? "", text)
        }
    }

    /// Raw payload texts of received messages of `type`.
    func payloads(ofType type: String) -> [String] {
        received().map(\.text).filter { (try? JSONValue(parsing: $0))?["type"]?.stringValue == type }
    }

    /// `type`s received on the media namespace, in order (status polls excluded).
    func mediaCommands() -> [String] {
        received().filter { $0.namespace == CastNamespace.media }
            .compactMap { (try? JSONValue(parsing: $0.text))?["type"]?.stringValue }
            .filter { $0 != "GET_STATUS" }
    }

    func stop() { process.stop() }
}
