import CastProtocol
import JSON

extension ReceiverSimulator {
    /// The control commands `cast-receiver-sim` reads on standard input.
    public static let controlHelp = """
        status                          one-line state summary
        drop                            drop every sender connection (like a reboot)
        stop-app                        stop the running app (senders get CLOSE)
        pause | play                    change playback as the TV's own remote would
        volume LEVEL                    set the device volume (0..1) and broadcast it
        inject receiver|media JSON      send JSON as is (a hostile receiver: absurd numbers, forged titles)
        garbage frames|oversized        write malformed frames (to skip), or a 2 GiB frame header (the link is lost)
        fault ignore-pings on|off       go silent on the heartbeat
        fault drop-after N|off          drop connections after N received messages
        fault launch-error REASON[:N]|off   fail LAUNCH (N times)
        fault fail-load on|off          answer LOAD with LOAD_FAILED
        fault delay-ms N                delay every reply
        fault byte-by-byte on|off       write frames one byte at a time
        fault device-auth wrong-signature|other-certificate|replay|off
                                        answer device-auth challenges wrongly
        """

    /// Runs one control command and returns the answer line.
    public func control(_ line: String) -> String {
        defer { persistState() }
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { return "" }
        switch command {
        case "status":
            return statusSummary
        case "drop":
            let count = connections.count
            dropAllConnections()
            return "ok dropped \(count)"
        case "stop-app":
            guard app != nil else { return "error no app running" }
            stopApp()
            broadcastReceiverStatus()
            return "ok"
        case "pause", "play":
            guard var session = media, let transportID = app?.application.transportID else { return "error nothing loaded" }
            session.settle(at: now)
            session.playerState = command == "pause" ? .paused : .playing
            media = session
            playbackGeneration += 1
            broadcastMediaStatus(from: transportID)
            schedulePlaybackEnd()
            return "ok"
        case "volume":
            guard words.count == 2, let level = Double(words[1]), (0...1).contains(level) else { return "error usage: volume 0..1" }
            volume.level = level
            broadcastReceiverStatus()
            return "ok"
        case "inject":
            return inject(line)
        case "garbage":
            guard words.count == 2, let garbage = SimulatorFaults.Garbage(rawValue: words[1]) else {
                return "error usage: garbage frames|oversized"
            }
            for connection in connections.values { connection.stream.enqueue(garbage.bytes, completion: nil) }
            return "ok sent to \(connections.count)"
        case "fault":
            return controlFault(Array(words.dropFirst()))
        case "help":
            return ReceiverSimulator.controlHelp
        default:
            return "error unknown command '\(command)' (try 'help')"
        }
    }

    /// `inject receiver|media JSON`: broadcasts the JSON unchanged, from the
    /// platform receiver or from the running app, to every connected sender.
    private func inject(_ line: String) -> String {
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, let json = try? JSONValue(parsing: parts[2]) else {
            return "error usage: inject receiver|media JSON"
        }
        switch parts[1] {
        case "receiver":
            broadcastFrom(CastEndpoint.platformReceiver, namespace: CastNamespace.receiver, json: json)
        case "media":
            guard let transportID = app?.application.transportID else { return "error no app running" }
            broadcastFrom(transportID, namespace: CastNamespace.media, json: json)
        default:
            return "error usage: inject receiver|media JSON"
        }
        return "ok"
    }

    private func controlFault(_ words: [String]) -> String {
        guard words.count == 2 else { return "error usage: fault NAME VALUE" }
        var faults = configuration.faults
        let value = words[1]
        let on = value == "on"
        switch words[0] {
        case "ignore-pings": faults.ignorePings = on
        case "fail-load": faults.failLoads = on
        case "byte-by-byte": faults.writeByteByByte = on
        case "drop-after": faults.dropAfterMessages = value == "off" ? nil : Int(value)
        case "device-auth":
            guard value == "off" || DeviceAuthFault(rawValue: value) != nil else {
                return "error device-auth takes wrong-signature, other-certificate, replay or off"
            }
            faults.deviceAuthFault = DeviceAuthFault(rawValue: value)
        case "delay-ms":
            guard let milliseconds = Int(value), milliseconds >= 0 else { return "error delay-ms takes milliseconds" }
            faults.replyDelay = .milliseconds(milliseconds)
        case "launch-error":
            if value == "off" {
                faults.launchErrorReason = nil
            } else {
                guard let parsed = SimulatorFaults.parseLaunchError(value) else { return "error usage: launch-error REASON[:COUNT]" }
                faults.launchErrorReason = parsed.reason
                faults.launchErrorCount = parsed.count
            }
        default:
            return "error unknown fault '\(words[0])'"
        }
        setFaults(faults)
        return "ok"
    }

    /// `connections=2 app=CC1AD845 player=PLAYING position=12.3 volume=0.50`
    public var statusSummary: String {
        var parts = ["connections=\(connections.count)", "app=\(app?.application.appID ?? "none")"]
        if let media {
            parts.append("player=\(media.playerState.wireName)")
            let position = (media.position(at: now) * 10).rounded() / 10
            parts.append("position=\(position)")
        }
        let level = Int(((volume.level ?? 0) * 100).rounded())
        parts.append("volume=\(level)%")
        parts.append("muted=\(volume.muted ?? false)")
        return parts.joined(separator: " ")
    }
}

extension SimulatorFaults {
    /// Parses `REASON` or `REASON:COUNT`.
    public static func parseLaunchError(_ text: String) -> (reason: String, count: Int?)? {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard let reason = parts.first, !reason.isEmpty else { return nil }
        if parts.count == 2 {
            guard let count = Int(parts[1]), count > 0 else { return nil }
            return (reason, count)
        }
        return (reason, nil)
    }
}
