import CastProtocol
import JSON
import SystemSupport

/// A Cast receiver in software: the receiver side of the platform, receiver
/// and media namespaces, with a playback clock, queue, tracks and volume.
///
/// It serves any number of senders at once and broadcasts status changes to
/// all of them, like a real device. It is the gateway's test peer, the "TV"
/// of `cast-gateway demo`, and a bench tool (`cast-receiver-sim`).
public actor ReceiverSimulator {
    public struct Configuration: Sendable {
        public var friendlyName: String
        /// Device id (uuid without dashes), as advertised in mDNS.
        public var deviceID: String
        /// Volume control type: `attenuation`, `fixed` or `master`.
        public var volumeControlType: String
        public var pingInterval: Duration
        public var logPath: String?
        /// Where to keep the app and player across restarts (nil: not kept).
        public var statePath: String?
        public var faults: SimulatorFaults
        /// Device credentials for answering device-auth challenges (nil: answer AuthError).
        public var deviceAuth: SimulatorDeviceAuth?
        /// Seconds assumed for BUFFERED media loaded without a duration, so
        /// that it can be seeked as on a real receiver (LIVE stays unseekable).
        public var defaultDuration: Double

        /// The duration assumed when a LOAD gives none.
        public static let standardDefaultDuration = 600.0
        /// `--default-duration` accepts up to this (a day).
        public static let defaultDurationRange: ClosedRange<Double> = 1...86_400
        /// Fetch the media on LOAD like a real receiver (nil: trust the LOAD).
        public var mediaProbe: (any MediaProbe)?

        public init(friendlyName: String = "Cast Receiver Simulator", deviceID: String? = nil,
                    volumeControlType: String = "attenuation", pingInterval: Duration = .seconds(5),
                    logPath: String? = nil, faults: SimulatorFaults = SimulatorFaults(),
                    defaultDuration: Double = Configuration.standardDefaultDuration) {
            self.friendlyName = friendlyName
            self.deviceID = deviceID ?? ReceiverSimulator.randomHex(count: 32)
            self.volumeControlType = volumeControlType
            self.pingInterval = pingInterval
            self.logPath = logPath
            self.faults = faults
            self.defaultDuration = defaultDuration
        }
    }

    /// One sender's TLS connection.
    final class Connection {
        let id: Int
        let stream: any ByteStream
        var decoder = FrameDecoder()
        var receivedCount = 0
        /// Virtual connections: sender id -> destinations it CONNECTed to.
        var virtualConnections: [String: Set<String>] = [:]
        var tasks: [Task<Void, Never>] = []

        init(id: Int, stream: any ByteStream) {
            self.id = id
            self.stream = stream
        }

        func isConnected(to destination: String) -> Bool {
            virtualConnections.values.contains { $0.contains(destination) }
        }
    }

    /// The app running in the foreground.
    struct RunningApp {
        var application: ReceiverApplication
        var supportedAppTypes: [String]
    }

    public private(set) var configuration: Configuration
    let timeSource: any TimeSource
    let logger = Logger(label: "receiver-sim")
    var connections: [Int: Connection] = [:]
    var nextConnectionID = 1
    var volume: CastVolume
    var app: RunningApp?
    var media: SimulatedMediaSession?
    var nextMediaSessionID = 1
    var launchErrorsSent = 0
    var playbackGeneration = 0
    /// The answer the `replay` device-auth fault sends every time.
    var recordedAuthResponse: AuthResponse?
    private var log: MessageLog?

    public init(configuration: Configuration = Configuration(), timeSource: any TimeSource = SystemTimeSource()) throws {
        self.configuration = configuration
        self.timeSource = timeSource
        volume = CastVolume(level: 0.5, muted: false, controlType: configuration.volumeControlType, stepInterval: 0.05)
        if let path = configuration.logPath { log = try MessageLog(path: path) }
    }

    /// Restores the saved state, if `statePath` is set. Call before serving.
    public func start() {
        restoreState()
        schedulePlaybackEnd()
    }

    /// Seconds on the simulator's clock.
    var now: Double { timeSource.now.seconds }

    /// Number of senders connected now.
    public var connectionCount: Int { connections.count }

    /// Replaces the fault switches (takes effect for the next message).
    public func setFaults(_ faults: SimulatorFaults) {
        configuration.faults = faults
        launchErrorsSent = 0
    }

    public var faults: SimulatorFaults { configuration.faults }

    /// Serves a newly accepted sender until it disconnects.
    public func serve(_ stream: any ByteStream) {
        let connection = Connection(id: nextConnectionID, stream: stream)
        nextConnectionID += 1
        connections[connection.id] = connection
        logger.info("sender connected from \(stream.peerDescription) (connection \(connection.id))")
        connection.tasks.append(Task { await self.readLoop(connection) })
        connection.tasks.append(Task { await self.pingLoop(connection) })
    }

    /// Drops every sender's connection (as a rebooting device would).
    public func dropAllConnections() {
        for connection in connections.values { disconnect(connection, reason: "dropped on request") }
    }

    private func readLoop(_ connection: Connection) async {
        do {
            for try await chunk in connection.stream.inbound {
                connection.decoder.append(chunk)
                while connections[connection.id] != nil {
                    let message: CastMessage
                    do {
                        guard let next = try connection.decoder.nextMessage() else { break }
                        message = next
                    } catch let error where error.code == .frameTooLarge || error.code == .emptyFrame {
                        disconnect(connection, reason: "bad frame: \(error)")
                        return
                    } catch {
                        logger.warning("connection \(connection.id): skipped a malformed message: \(error)")
                        continue
                    }
                    await receive(message, on: connection)
                }
            }
        } catch {
            logger.info("connection \(connection.id) failed: \(error)")
        }
        disconnect(connection, reason: "sender closed the connection")
    }

    private func pingLoop(_ connection: Connection) async {
        while connections[connection.id] != nil {
            do { try await timeSource.sleep(for: configuration.pingInterval) } catch { return }
            guard connections[connection.id] != nil, !configuration.faults.ignorePings else { continue }
            send(CastMessage(sourceID: CastEndpoint.platformReceiver, destinationID: CastEndpoint.platformSender,
                             namespace: CastNamespace.heartbeat, json: ConnectionMessages.ping), on: connection)
        }
    }

    func disconnect(_ connection: Connection, reason: String) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        logger.info("connection \(connection.id) closed: \(reason)")
        for task in connection.tasks { task.cancel() }
        connection.stream.close()
    }

    // MARK: Dispatch

    private func receive(_ message: CastMessage, on connection: Connection) async {
        connection.receivedCount += 1
        log?.record(message, connection: connection.id, time: now)
        if let limit = configuration.faults.dropAfterMessages, connection.receivedCount > limit {
            disconnect(connection, reason: "fault: drop after \(limit) messages")
            return
        }
        if message.namespace == CastNamespace.deviceAuth {
            answerDeviceAuth(message, on: connection)
            return
        }
        guard case .string = message.payload else { return }
        guard let json = try? message.jsonPayload(), json.objectValue != nil else {
            logger.warning("connection \(connection.id): payload on \(message.namespace) is not a JSON object")
            return
        }
        let delay = configuration.faults.replyDelay
        if delay > .zero, message.namespace != CastNamespace.heartbeat {
            try? await timeSource.sleep(for: delay)
            guard connections[connection.id] != nil else { return }
        }
        let type = json["type"]?.stringValue ?? ""
        switch message.namespace {
        case CastNamespace.connection: handleConnection(type, message, on: connection)
        case CastNamespace.heartbeat:
            if type == "PING", !configuration.faults.ignorePings {
                send(message.reply(json: ConnectionMessages.pong), on: connection)
            }
        case CastNamespace.receiver: handleReceiver(type, json, message, on: connection)
        case CastNamespace.media:
            // As a receiver does: an app hears only senders that CONNECTed to it.
            guard connection.virtualConnections[message.sourceID]?.contains(message.destinationID) ?? false else {
                logger.notice("connection \(connection.id): dropped \(type) to \(message.destinationID) from \(message.sourceID), which has not connected to it")
                return
            }
            handleMedia(type, json, message, on: connection)
        default: logger.debug("connection \(connection.id): ignored namespace \(message.namespace)")
        }
        if message.namespace == CastNamespace.receiver || message.namespace == CastNamespace.media { persistState() }
    }

    private func handleConnection(_ type: String, _ message: CastMessage, on connection: Connection) {
        switch type {
        case "CONNECT":
            let destination = message.destinationID
            if destination != CastEndpoint.platformReceiver, app?.application.transportID != destination {
                // No such endpoint (the app stopped): tell the sender at once.
                send(message.reply(json: ConnectionMessages.close), on: connection)
                return
            }
            connection.virtualConnections[message.sourceID, default: []].insert(destination)
        case "CLOSE":
            connection.virtualConnections[message.sourceID]?.remove(message.destinationID)
        default:
            break
        }
    }

    // MARK: Sending

    func send(_ message: CastMessage, on connection: Connection) {
        guard let frame = try? message.framed() else { return }
        if configuration.faults.writeByteByByte {
            for byte in frame { connection.stream.enqueue([byte], completion: nil) }
        } else {
            connection.stream.enqueue(frame, completion: nil)
        }
    }

    /// Sends `json` to the requester (with its request id, already in `json`)
    /// and, with request id 0, to every other connection following `source`.
    func reply(_ json: JSONValue, to request: CastMessage, on connection: Connection, broadcastFrom source: String) {
        send(request.reply(json: json), on: connection)
        var broadcast = json.objectValue ?? JSONObject()
        broadcast["requestId"] = 0
        broadcastFrom(source, namespace: request.namespace, json: .object(broadcast), except: connection.id)
    }

    /// Sends to every connection with a virtual connection to `source`.
    func broadcastFrom(_ source: String, namespace: String, json: JSONValue, except excluded: Int? = nil) {
        for connection in connections.values where connection.id != excluded && connection.isConnected(to: source) {
            send(CastMessage(sourceID: source, destinationID: CastEndpoint.broadcast, namespace: namespace, json: json),
                 on: connection)
        }
    }

    static func randomHex(count: Int) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<count).map { _ in digits[Int.random(in: 0..<16)] })
    }
}
