import Foundation
import JSON
import ReceiverSimulator
import ServiceLifecycle
import TestSupport
@testable import Daemon

/// The daemon of a config file, run in-process as `cast-gateway run` runs it
/// (its service group), against the real receiver simulator over in-memory streams.
struct InProcessDaemon {
    let daemon: Daemon
    let simulator: ReceiverSimulator
    let group: ServiceGroup
    /// The group's run: true when every service stopped within its deadline.
    let task: Task<Bool, Never>
    /// The simulator's log of every message it received, if one is kept.
    let log: String?

    /// Starts the daemon of `config`; `onConnect` is told of every connection to the receiver.
    static func start(config: String, simulatorLog: String? = nil,
                      onConnect: @escaping @Sendable () -> Void = {}) throws -> InProcessDaemon {
        var configuration = ReceiverSimulator.Configuration()
        configuration.logPath = simulatorLog
        let simulator = try ReceiverSimulator(configuration: configuration)
        let daemon = Daemon(path: config, settings: try DaemonSettings.load(path: config), connector: { _, _ in
            onConnect()
            let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
            await simulator.serve(receiverEnd)
            return clientEnd
        }, version: "test")
        let group = daemon.serviceGroup(discovery: nil, reloadSignals: [])
        let task = Task { await group.run() }
        return InProcessDaemon(daemon: daemon, simulator: simulator, group: group, task: task, log: simulatorLog)
    }

    /// Stops every service; returns whether they all stopped within the group's deadline.
    @discardableResult
    func stop() async -> Bool {
        group.shutdown()
        return await task.value
    }

    /// The payloads the receiver was sent, in order (with a simulator log).
    var payloads: [JSONValue] { InProcessDaemon.payloads(in: log) }

    static func payloads(in log: String?) -> [JSONValue] {
        guard let log else { return [] }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONValue(parsing: String(line)), let data = entry["data"]?.stringValue else { return nil }
            return try? JSONValue(parsing: data)
        }
    }
}
