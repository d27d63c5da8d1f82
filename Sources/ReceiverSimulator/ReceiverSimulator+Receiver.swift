import CastProtocol
import JSON

extension ReceiverSimulator {
    /// The receiver status as a real device reports it: the Backdrop idle
    /// screen when nothing runs.
    var receiverStatus: ReceiverStatus {
        let application = app?.application ?? ReceiverApplication(
            appID: CastAppID.backdrop, displayName: "Backdrop", isIdleScreen: true, namespaces: [],
            sessionID: backdropSessionID, statusText: "", transportID: backdropSessionID)
        return ReceiverStatus(volume: volume, applications: [application])
    }

    var backdropSessionID: String { "backdrop-\(configuration.deviceID.prefix(8))" }

    func handleReceiver(_ type: String, _ json: JSONValue, _ message: CastMessage, on connection: Connection) {
        let requestID = json["requestId"]?.intValue ?? 0
        switch type {
        case "GET_STATUS":
            send(message.reply(json: receiverStatus.message(requestID: requestID)), on: connection)
        case "LAUNCH":
            launch(json, requestID: requestID, message, on: connection)
        case "STOP":
            guard let running = app, json["sessionId"]?.stringValue == running.application.sessionID else {
                send(message.reply(json: invalidRequest(requestID, "INVALID_SESSION_ID")), on: connection)
                return
            }
            stopApp()
            reply(receiverStatus.message(requestID: requestID), to: message, on: connection,
                  broadcastFrom: CastEndpoint.platformReceiver)
        case "SET_VOLUME":
            guard volume.controlType != "fixed" else {
                send(message.reply(json: invalidRequest(requestID, "INVALID_COMMAND")), on: connection)
                return
            }
            if let level = json["volume"]?["level"]?.doubleValue { volume.level = min(max(level, 0), 1) }
            if let muted = json["volume"]?["muted"]?.boolValue { volume.muted = muted }
            reply(receiverStatus.message(requestID: requestID), to: message, on: connection,
                  broadcastFrom: CastEndpoint.platformReceiver)
        case "GET_APP_AVAILABILITY":
            var availability = JSONObject()
            for appID in json["appId"]?.arrayValue?.compactMap(\.stringValue) ?? [] {
                availability[appID] = .string(ReceiverSimulator.isKnownAppID(appID) ? "APP_AVAILABLE" : "APP_UNAVAILABLE")
            }
            send(message.reply(json: ["responseType": "GET_APP_AVAILABILITY", "requestId": .int(requestID),
                                      "availability": .object(availability)]), on: connection)
        default:
            send(message.reply(json: invalidRequest(requestID, "INVALID_COMMAND")), on: connection)
        }
    }

    /// Any 8-digit hex id is "installed"; anything else is NOT_FOUND.
    static func isKnownAppID(_ appID: String) -> Bool {
        appID.count == 8 && appID.allSatisfy(\.isHexDigit)
    }

    private func launch(_ json: JSONValue, requestID: Int, _ message: CastMessage, on connection: Connection) {
        let faults = configuration.faults
        if let reason = faults.launchErrorReason, launchErrorsSent < (faults.launchErrorCount ?? Int.max) {
            launchErrorsSent += 1
            send(message.reply(json: ["type": "LAUNCH_ERROR", "requestId": .int(requestID), "reason": .string(reason)]),
                 on: connection)
            return
        }
        guard let appID = json["appId"]?.stringValue, !appID.isEmpty else {
            send(message.reply(json: ["type": "LAUNCH_ERROR", "requestId": .int(requestID), "reason": "BAD_PARAMETER"]),
                 on: connection)
            return
        }
        guard ReceiverSimulator.isKnownAppID(appID) else {
            send(message.reply(json: ["type": "LAUNCH_ERROR", "requestId": .int(requestID), "reason": "NOT_FOUND"]),
                 on: connection)
            return
        }
        let appTypes = json["supportedAppTypes"]?.arrayValue?.compactMap(\.stringValue) ?? ["WEB"]
        if app?.application.appID != appID {
            stopApp()
            let sessionID = ReceiverSimulator.randomUUID()
            let displayName = appID == CastAppID.defaultMediaReceiver ? "Default Media Receiver" : "App \(appID)"
            app = RunningApp(
                application: ReceiverApplication(
                    appID: appID, displayName: displayName, namespaces: [
                        CastNamespace.media, "urn:x-cast:com.google.cast.cac", "urn:x-cast:com.google.cast.debugoverlay",
                    ],
                    sessionID: sessionID, statusText: "Ready To Cast", transportID: sessionID, universalAppID: appID),
                supportedAppTypes: appTypes)
            logger.info("launched \(displayName) (app types \(appTypes.joined(separator: ",")))")
        }
        reply(receiverStatus.message(requestID: requestID), to: message, on: connection,
              broadcastFrom: CastEndpoint.platformReceiver)
    }

    /// Stops the running app: senders following it get CLOSE from its transport.
    func stopApp() {
        guard let running = app else { return }
        let transportID = running.application.transportID
        for connection in connections.values {
            for (sender, destinations) in connection.virtualConnections where destinations.contains(transportID) {
                send(CastMessage(sourceID: transportID, destinationID: sender, namespace: CastNamespace.connection,
                                 json: ConnectionMessages.close), on: connection)
                connection.virtualConnections[sender]?.remove(transportID)
            }
        }
        app = nil
        media = nil
        playbackGeneration += 1
        logger.info("stopped \(running.application.displayName)")
    }

    func invalidRequest(_ requestID: Int, _ reason: String) -> JSONValue {
        ["type": "INVALID_REQUEST", "requestId": .int(requestID), "reason": .string(reason)]
    }

    static func randomUUID() -> String {
        let hex = randomHex(count: 32)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// Broadcasts the receiver status to every sender (requestId 0), as after a
    /// change made on the device itself.
    func broadcastReceiverStatus() {
        broadcastFrom(CastEndpoint.platformReceiver, namespace: CastNamespace.receiver,
                      json: receiverStatus.message(requestID: 0))
    }
}
