import CastProtocol

extension CastClient {
    /// Launches `settings.appID` with its credentials and joins it. A
    /// LAUNCH_ERROR with reason CANCELLED (the receiver was busy switching
    /// apps) is retried once. Launch progress (LAUNCH_STATUS) is logged while
    /// waiting, up to the launch timeout.
    @discardableResult
    public func launch(_ settings: LaunchSettings = LaunchSettings()) async throws -> ReceiverApplication {
        let channel = try connectedChannel()
        let request = LaunchRequest(appID: settings.appID, language: configuration.language,
                                    allowsAndroidReceiver: settings.allowsAndroidReceiver,
                                    credentials: settings.credentials)
        let logger = self.logger
        for attempt in 1...2 {
            logger.info("launching \(request.appID) (app types \(request.supportedAppTypes.joined(separator: ", "))\(request.credentials == nil ? "" : ", with credentials"))")
            let reply = try await channel.request(
                namespace: CastNamespace.receiver, to: CastEndpoint.platformReceiver, timeout: configuration.launchTimeout,
                isFinal: { reply in
                    if reply.type == "LAUNCH_STATUS" {
                        logger.info("launch progress: \(reply.body["launchStatus"]?.stringValue ?? reply.body["status"]?.stringValue ?? "?")")
                        return false
                    }
                    return true
                }
            ) { ReceiverRequest.launch(request).json(requestID: $0) }
            switch reply.type {
            case "RECEIVER_STATUS":
                let status = ReceiverStatus(message: reply.body)
                guard let application = status.applications.first(where: { $0.appID == request.appID })
                    ?? status.activeApplication else {
                    let error = CastError(.launchFailed, "the receiver accepted the launch of \(request.appID) but reports no running app")
                    state.lastError = error
                    throw error
                }
                apply(receiverStatus: status, arrival: reply.arrival, on: channel)
                return application
            case "LAUNCH_ERROR":
                let reason = reply.reason ?? "UNKNOWN"
                if reason == "CANCELLED", attempt == 1 {
                    logger.notice("launch of \(request.appID) was cancelled by the receiver; retrying once")
                    continue
                }
                let error = CastError(.launchFailed, "the receiver refused to launch \(request.appID): \(reason) (\(CastClient.launchErrorHint(reason)))", reason: reason)
                state.lastError = error
                throw error
            default:
                let error = CastError(.invalidRequest, "the receiver answered LAUNCH with \(reply.type)\(reply.reason.map { " (\($0))" } ?? "")", reason: reply.reason)
                state.lastError = error
                throw error
            }
        }
        fatalError("unreachable: the launch loop returns or throws")
    }

    static func launchErrorHint(_ reason: String) -> String {
        switch reason {
        case "NOT_FOUND": "the app id is unknown to this device or not available in this region; check [cast] app-id"
        case "CANCELLED": "another launch or app switch interrupted it; try again"
        case "CAST_INIT_TIMEOUT": "the app did not start in time on the receiver"
        case "BAD_PARAMETER": "the receiver rejected the launch parameters; check app-id and credentials"
        case "SYSTEM_ERROR": "the receiver had an internal error; rebooting it may help"
        case "NOT_ALLOWED": "the receiver does not allow this app to be launched by this sender"
        default: "see the receiver's documentation for this reason"
        }
    }

    /// Stops the running app (the receiver returns to its idle screen).
    public func stopApplication() async throws {
        let channel = try connectedChannel()
        guard let application = state.application else {
            throw CastError(.noMediaSession, "no app is running on \(configuration.address)")
        }
        let reply = try await channel.request(namespace: CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                              timeout: configuration.requestTimeout) {
            ReceiverRequest.stop(sessionID: application.sessionID).json(requestID: $0)
        }
        try expectStatus(reply, for: "STOP")
    }

    /// Sets the device volume (0...1, clamped).
    public func setVolume(level: Double) async throws {
        let channel = try connectedChannel()
        try requireAdjustableVolume()
        let clamped = min(max(level, 0), 1)
        state.receiver?.volume.level = clamped  // later relative steps build on it at once
        let reply = try await channel.request(namespace: CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                              timeout: configuration.requestTimeout) {
            ReceiverRequest.setVolumeLevel(clamped).json(requestID: $0)
        }
        try expectStatus(reply, for: "SET_VOLUME")
    }

    /// Changes the device volume by `delta` (e.g. +0.05), clamped to 0...1.
    public func adjustVolume(by delta: Double) async throws {
        _ = try connectedChannel()
        let current = state.receiver?.volume.level ?? 0.5
        try await setVolume(level: current + delta)
    }

    /// Mutes or unmutes the device (sent separately from the level, as receivers expect).
    public func setMuted(_ muted: Bool) async throws {
        let channel = try connectedChannel()
        try requireAdjustableVolume()
        state.receiver?.volume.muted = muted
        let reply = try await channel.request(namespace: CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                              timeout: configuration.requestTimeout) {
            ReceiverRequest.setMuted(muted).json(requestID: $0)
        }
        try expectStatus(reply, for: "SET_VOLUME")
    }

    /// Flips mute based on the latest known state.
    public func toggleMute() async throws {
        _ = try connectedChannel()
        try await setMuted(!(state.receiver?.volume.muted ?? false))
    }

    /// Asks which of `appIDs` the device can run: appId -> `APP_AVAILABLE` / `APP_UNAVAILABLE`.
    public func appAvailability(_ appIDs: [String]) async throws -> [String: String] {
        let channel = try connectedChannel()
        let reply = try await channel.request(namespace: CastNamespace.receiver, to: CastEndpoint.platformReceiver,
                                              timeout: configuration.requestTimeout) {
            ReceiverRequest.getAppAvailability(appIDs).json(requestID: $0)
        }
        var result: [String: String] = [:]
        for member in reply.body["availability"]?.objectValue?.members ?? [] {
            result[member.key] = member.value.stringValue ?? "UNKNOWN"
        }
        return result
    }

    private func requireAdjustableVolume() throws {
        if state.receiver?.volume.controlType == "fixed" {
            throw CastError(.unsupportedCommand, "the volume of \(configuration.address) is fixed and cannot be changed")
        }
    }

    /// Turns an error reply into a `CastError`; a RECEIVER_STATUS passes and is applied.
    func expectStatus(_ reply: CastReply, for request: String) throws {
        if reply.type == "RECEIVER_STATUS" {
            if let channel { apply(receiverStatus: ReceiverStatus(message: reply.body), arrival: reply.arrival, on: channel) }
            return
        }
        let error = CastError(.invalidRequest, "the receiver rejected \(request): \(reply.type)\(reply.reason.map { " \($0)" } ?? "")", reason: reply.reason)
        state.lastError = error
        throw error
    }
}
