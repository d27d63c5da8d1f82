import Fleet
import Foundation
import GatewayModel
import SystemSupport
import TestSupport
import XCTest

/// What a hostile probe found: huge messages, a TLS broker that refuses,
/// commands sent while the receiver is away, two boxes with one room, and
/// something that is not an MQTT broker on the broker's port.
extension FleetBrokerTests {
    // MARK: Oversized messages

    /// A 40 MB publish to the room's `cmd` topic: the broker drops it (the
    /// client asked for at most 64 KiB packets), the process does not grow,
    /// nobody is answered for it, and the next command runs.
    func testAHugeCommandNeverReachesTheGatewayAndTheNextCommandRuns() async throws {
        let broker = try startBroker()
        let observer = BrokerObserver(broker: broker)
        let fleet = startFleet(settings(broker))
        let connected = await waitConnected(fleet)
        XCTAssertTrue(connected, broker.log)
        let replies = try observer.subscribe("castgw/r1/reply")
        defer { replies.stop() }
        // Made and sent by child processes: this process's memory is the client's alone.
        let huge = directory + "/huge.bin"
        let make = try ChildProcess("sh", ["-c", "head -c 41943040 /dev/zero | tr '\\000' a > \(huge)"], outputPath: huge + ".out")
        XCTAssertEqual(make.waitForExit(timeout: 60), 0, make.output)

        try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)  // peak RSS := current
        let before = try memory("VmRSS")
        try observer.publishFile("castgw/r1/cmd", huge)
        try observer.publish("castgw/r1/cmd", #"{"id":"after","command":"pause"}"#)
        let answered = await eventually(timeout: .seconds(30)) { replies.lines.contains { $0.contains(#""after""#) } }
        XCTAssertTrue(answered, replies.output)
        let peak = try memory("VmHWM")
        XCTAssertLessThan(peak - before, 5 << 20, "peak RSS grew by \(peak - before) bytes for a 40 MB message")
        print("a 40 MB command: peak RSS +\((peak - before) >> 10) KiB")
        XCTAssertEqual(replies.lines, [#"castgw/r1/reply {"id":"after","ok":true,"lines":["ok: pause"]}"#])
        XCTAssertEqual(fleet.handler.received, ["pause"])
        XCTAssertTrue(fleet.service.status.connected)
    }

    // MARK: A TLS broker that refuses

    /// An mqtts broker that refuses: first its TLS handshake (it requires a
    /// client certificate the gateway does not have), later its port (stopped).
    /// Each time the client says so at once, idles while it waits for its next
    /// attempt, connects on that attempt once the broker is back, and stops at once.
    func testAnMQTTSBrokerThatRefusesIsReportedIdlesReconnectsAndStops() async throws {
        let tls = try makeCertificates()
        let broker = try startBroker(tls: .init(ca: tls + "/ca.pem", certificate: tls + "/server.pem", key: tls + "/server.key"),
                                     extra: ["require_certificate true"])
        let clock = ManualTimeSource()
        let fleet = startFleet(settings(broker) { $0.broker.tls = true; $0.caFile = tls + "/ca.pem" }, clock: clock)
        let refused = await eventually(timeout: .seconds(5)) { fleet.service.status.problem != nil }
        XCTAssertTrue(refused, "\(fleet.service.status) \(broker.log)")
        let problem = fleet.service.status.problem ?? ""
        XCTAssertTrue(problem.hasPrefix("the TLS connection to the MQTT broker mqtts://127.0.0.1:\(broker.port) ended before") && problem.contains("client certificate"), problem)
        XCTAssertEqual(fleet.statuses.all.last?.problem, problem, "reported through onStatusChange")
        try await assertIdle("after a refused TLS handshake")

        // The broker accepts again: the next attempt (within the first backoff delay) connects.
        broker.stop()
        let config = broker.directory + "/mosquitto.conf"
        try (try String(contentsOfFile: config, encoding: .utf8)).replacingOccurrences(of: "require_certificate true\n", with: "")
            .write(toFile: config, atomically: true, encoding: .utf8)
        try broker.start()
        await clock.advance(by: .seconds(2))
        let back = await waitConnected(fleet)
        XCTAssertTrue(back, "\(fleet.service.status) \(broker.log)")

        // A 5 s outage: the broker's port refuses connections.
        broker.stop()
        let lost = await eventually(timeout: .seconds(5)) { !fleet.service.status.connected && fleet.service.status.problem != nil }
        XCTAssertTrue(lost, "\(fleet.service.status)")
        // The backoff was not reset (the connection did not stay up 2 minutes): the second delay is at most 3 s.
        await clock.advance(by: .seconds(3), step: .milliseconds(250))  // one attempt against the closed port
        let unreachable = await eventually(timeout: .seconds(5)) { fleet.service.status.problem?.hasPrefix("cannot connect") == true }
        XCTAssertTrue(unreachable, "\(fleet.statuses.all)")
        try await assertIdle("while the mqtts port refuses connections")
        try broker.start()
        await clock.advance(by: .seconds(6), step: .milliseconds(250))  // past the third backoff delay (at most 6 s)
        let again = await waitConnected(fleet)
        XCTAssertTrue(again, "\(fleet.statuses.all) \(broker.log)")

        // Refused again, then SIGTERM's cancellation: run() returns.
        broker.stop()
        let down = await eventually { !fleet.service.status.connected }
        XCTAssertTrue(down)
        await clock.advance(by: .seconds(8))
        let stopped = Recorded<Bool>()
        Task { await fleet.stop(); stopped.append(true) }
        let finished = await eventually(timeout: .seconds(10)) { !stopped.all.isEmpty }
        XCTAssertTrue(finished, "run() did not return after cancellation")
    }

    // MARK: Commands sent while the receiver is away

    /// Commands that need the receiver wait for the Cast link, in order (a
    /// local one behind them waits too); `status` does not wait; one that waits
    /// out `command-wait` is answered that it did not run.
    func testCommandsWaitForTheReceiverInOrderQueriesDoNotAndAnExpiredOneIsAnswered() async throws {
        let broker = try startBroker()
        let observer = BrokerObserver(broker: broker)
        let clock = ManualTimeSource()
        let handler = RecordingHandler(kinds: { line in
            switch line {
            case "status": .query
            case "log debug": .local
            default: .needsReceiver
            }
        })
        var away = GatewayState()
        away.link = .reconnecting(retryInSeconds: 2)
        let fleet = startFleet(settings(broker), clock: clock, handler: handler, initial: away)
        let connected = await waitConnected(fleet)
        XCTAssertTrue(connected, broker.log)
        let replies = try observer.subscribe("castgw/r1/reply")
        defer { replies.stop() }

        for command in ["checkout", "log debug", "status", "stop"] {
            try observer.publish("castgw/r1/cmd", #"{"id":"\#(command)","command":"\#(command)"}"#)
        }
        let statusRan = await eventually { replies.lines.count == 1 }
        XCTAssertTrue(statusRan, replies.output)
        XCTAssertEqual(handler.received, ["status"])
        await clock.advance(by: .seconds(30))
        XCTAssertEqual(handler.received, ["status"], "still waiting for the receiver")

        var back = away
        back.link = .connected
        fleet.states.publish(back)
        let ran = await eventually { replies.lines.count == 4 }
        XCTAssertTrue(ran, replies.output)
        XCTAssertEqual(handler.received, ["status", "checkout", "log debug", "stop"])
        XCTAssertEqual(replies.lines.map { String($0.split(separator: ",")[0]) },
                       [#"castgw/r1/reply {"id":"status""#, #"castgw/r1/reply {"id":"checkout""#,
                        #"castgw/r1/reply {"id":"log debug""#, #"castgw/r1/reply {"id":"stop""#])

        // Away again for longer than command-wait (2 minutes by default).
        fleet.states.publish(away)
        try observer.publish("castgw/r1/cmd", #"{"id":"late","command":"pause"}"#)
        try observer.publish("castgw/r1/cmd", "status")  // answered once "late" is held: the session takes messages in order
        let held = await eventually { replies.lines.count == 5 }
        XCTAssertTrue(held, replies.output)
        await clock.advance(by: .seconds(121), step: .seconds(1))
        let expired = await eventually { replies.lines.count == 6 }
        XCTAssertTrue(expired, replies.output)
        XCTAssertEqual(replies.lines.last, #"castgw/r1/reply {"id":"late","ok":false,"lines":["error: not run: the receiver was not connected within 120 s of the command (link: reconnecting); send it again once status shows the link connected"]}"#)
        XCTAssertEqual(handler.received, ["status", "checkout", "log debug", "stop", "status"], "the expired command never ran")
    }

    // MARK: Two boxes, one room

    /// Cloned SD cards: two gateways with the same room (client id) take the
    /// connection from each other. Each says so once, and they back off
    /// instead of reconnecting every second.
    func testTwoGatewaysWithTheSameRoomSaySoAndBackOff() async throws {
        let broker = try startBroker()
        let logged = Recorded<String>()
        Logger.setSink { level, line in if level <= .warning { logged.append(line) } }
        let clock = ManualTimeSource()
        let first = startFleet(settings(broker, room: "214"), clock: clock)
        let firstUp = await waitConnected(first)
        XCTAssertTrue(firstUp, broker.log)
        let second = startFleet(settings(broker, room: "214"), clock: clock)
        let kicked = await eventually { !first.service.status.connected && second.service.status.connected }
        XCTAssertTrue(kicked, "\(first.service.status) \(second.service.status)")

        func connections() -> Int { broker.log.components(separatedBy: "New client connected").count - 1 }
        func settled() -> Bool {
            // Every connection the broker saw was seen by a gateway, and exactly one holds the room.
            let ups = (first.statuses.all + second.statuses.all).filter(\.connected).count
            return ups == connections() && first.service.status.connected != second.service.status.connected
        }
        for _ in 0..<360 {  // 90 s of the gateways' time
            await clock.advance(by: .milliseconds(250), step: .milliseconds(250))
            let calm = await eventually { settled() }
            XCTAssertTrue(calm, "\(first.statuses.all) \(second.statuses.all)\n\(broker.log)")
        }
        // Doubling delays from 1 s (±50 %) allow about 12 connections in 90 s; resetting at every CONNACK, about 70.
        XCTAssertLessThanOrEqual(connections(), 24, broker.log)
        print("two gateways, one room: \(connections()) connections in 90 s")
        let problem = "another gateway uses room 214 on mqtt://127.0.0.1:\(broker.port) (same client id 214)"
        XCTAssertTrue(first.statuses.all.contains { $0.problem?.contains(problem) == true }, "\(first.statuses.all)")
        XCTAssertTrue(second.statuses.all.contains { $0.problem?.contains(problem) == true }, "\(second.statuses.all)")
        let holder = first.service.status.connected ? first : second
        XCTAssertTrue(holder.service.status.problem?.contains(problem) == true, "shown while connected: \(holder.service.status)")
        XCTAssertLessThanOrEqual(logged.all.filter { $0.contains("another gateway uses room 214") }.count, 2, "\(logged.all)")
    }

    // MARK: Not an MQTT broker

    /// `mqtt://` pointed at a TLS listener: the peer closes without a CONNACK.
    func testAServerThatDoesNotSpeakMQTTIsNamedSo() async throws {
        let tls = try makeCertificates()
        let broker = try startBroker(tls: .init(ca: tls + "/ca.pem", certificate: tls + "/server.pem", key: tls + "/server.key"))
        let fleet = startFleet(settings(broker), clock: ManualTimeSource())
        let reported = await eventually { fleet.service.status.problem != nil }
        XCTAssertTrue(reported)
        let problem = fleet.service.status.problem ?? ""
        XCTAssertTrue(problem.hasPrefix("127.0.0.1 port \(broker.port) does not speak MQTT") && problem.contains("mqtts://"), problem)
        XCTAssertFalse(problem.contains("Success"), problem)
    }

    // MARK: Helpers

    /// A field of /proc/self/status in bytes (VmRSS, VmHWM).
    private func memory(_ field: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kB = Int(line.split(separator: " ").dropFirst().first ?? "") else {
            throw NSError(domain: "proc", code: 1, userInfo: [NSLocalizedDescriptionKey: "no \(field) in /proc/self/status"])
        }
        return kB * 1024
    }

    /// This process uses (almost) no CPU for 2 s: nothing here runs but the fleet client.
    private func assertIdle(_ when: String, file: StaticString = #filePath, line: UInt = #line) async throws {
        let start = cpuSeconds()
        try await Task.sleep(for: .seconds(2))  // the measuring window, not a synchronisation
        let used = cpuSeconds() - start
        XCTAssertLessThan(used, 0.5, "\(used) s of CPU in 2 s \(when)", file: file, line: line)
        print("CPU \(when): \(used) s in 2 s")
    }

    /// User plus system CPU time of this process.
    private func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
