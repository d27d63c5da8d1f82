import CastProtocol

extension CastClient {
    // MARK: Loading

    /// Plays `load.media` now: launches `settings.appID` unless it already
    /// runs and speaks the media namespace, then sends LOAD.
    public func load(_ request: LoadRequest, launching settings: LaunchSettings = LaunchSettings()) async throws {
        // Cast Connect receivers sign the user in with LOAD's credentials.
        var withCredentials = request
        if withCredentials.credentials == nil, let credentials = settings.loadCredentials {
            withCredentials.credentials = credentials.credentials
            withCredentials.credentialsType = credentials.credentialsType
        }
        let load = withCredentials
        let (channel, application) = try await mediaApplication(settings)
        let reply = try await channel.request(namespace: CastNamespace.media, to: application.transportID,
                                              timeout: configuration.requestTimeout) {
            MediaRequest.load(load, sessionID: application.sessionID).json(requestID: $0)
        }
        try expectMediaStatus(reply, for: "LOAD of \(load.media.contentID)")
    }

    /// Replaces the queue with `items` and starts at `startIndex` ("play now" for a list).
    public func queueLoad(_ items: [QueueItem], startIndex: Int = 0, repeatMode: String = "REPEAT_OFF",
                          launching settings: LaunchSettings = LaunchSettings()) async throws {
        let (channel, application) = try await mediaApplication(settings)
        let credentials = settings.loadCredentials
        let reply = try await channel.request(namespace: CastNamespace.media, to: application.transportID,
                                              timeout: configuration.requestTimeout) {
            MediaRequest.queueLoad(items: items, startIndex: startIndex, repeatMode: repeatMode,
                                   sessionID: application.sessionID, credentials: credentials).json(requestID: $0)
        }
        try expectMediaStatus(reply, for: "QUEUE_LOAD")
    }

    /// Adds `items` to the queue ("add to queue"), or loads them when nothing plays.
    public func queueInsert(_ items: [QueueItem], insertBefore: Int? = nil,
                            launching settings: LaunchSettings = LaunchSettings()) async throws {
        guard let media = state.media, media.playerState != .idle || media.media != nil else {
            try await queueLoad(items, launching: settings)
            return
        }
        try await mediaCommand(.queueInsert(items: items, insertBefore: insertBefore, mediaSessionID: media.mediaSessionID))
    }

    /// The app to send media to: `settings.appID`, launched unless it runs.
    private func mediaApplication(_ settings: LaunchSettings) async throws -> (CastChannel, ReceiverApplication) {
        let channel = try connectedChannel()
        if let application = state.application, application.supportsMedia, application.appID == settings.appID {
            return (channel, application)
        }
        let application = try await launch(settings)
        return (try connectedChannel(), application)
    }

    // MARK: Playback commands

    public func play() async throws { try await mediaCommand { .play(mediaSessionID: $0) } }
    public func pause() async throws { try await mediaCommand { .pause(mediaSessionID: $0) } }
    public func stopMedia() async throws { try await mediaCommand { .stop(mediaSessionID: $0) } }
    public func next() async throws { try await mediaCommand { .queueJump(mediaSessionID: $0, by: 1) } }
    public func previous() async throws { try await mediaCommand { .queueJump(mediaSessionID: $0, by: -1) } }

    /// Pauses when playing or buffering, plays when paused; decided from the
    /// latest status (which includes changes made by other senders).
    public func togglePlayback() async throws {
        let media = try currentMedia()
        switch media.playerState {
        case .playing, .buffering, .loading: try await pause()
        case .paused: try await play()
        case .idle, .other:
            throw CastError(.noMediaSession, "nothing is playing on \(configuration.address) (player is \(media.playerState.wireName))")
        }
    }

    /// Seeks to `position` seconds; `resumeState` nil keeps the current play/pause state.
    public func seek(to position: Double, resumeState: ResumeState? = nil) async throws {
        try await mediaCommand { .seek(mediaSessionID: $0, position: max(position, 0), resumeState: resumeState) }
    }

    /// Seeks by `delta` seconds from the extrapolated current position,
    /// clamped to the media's bounds.
    public func seek(by delta: Double, resumeState: ResumeState? = nil) async throws {
        let media = try currentMedia()
        var target = (state.position(at: timeSource.now) ?? media.currentTime) + delta
        if let duration = media.media?.duration, duration > 0 { target = min(target, duration) }
        try await seek(to: max(target, 0), resumeState: resumeState)
    }

    public func setPlaybackRate(_ rate: Double) async throws {
        try await mediaCommand { .setPlaybackRate(mediaSessionID: $0, rate: rate) }
    }

    /// Sets the stream (not device) volume, or its mute.
    public func setStreamVolume(level: Double? = nil, muted: Bool? = nil) async throws {
        try await mediaCommand { .setStreamVolume(mediaSessionID: $0, level: level, muted: muted) }
    }

    // MARK: Tracks

    /// Activates exactly `trackIDs` (`[]`: all off), optionally with a text style.
    public func setActiveTracks(_ trackIDs: [Int], textTrackStyle: TextTrackStyle? = nil) async throws {
        try await mediaCommand { .editTracks(mediaSessionID: $0, activeTrackIDs: trackIDs, textTrackStyle: textTrackStyle) }
    }

    /// Steps through the text tracks: off → first → … → last → off. Other
    /// active tracks (audio) stay active.
    public func cycleSubtitles() async throws {
        try await cycleTracks(of: .text, allowingOff: true)
    }

    /// Steps through the audio tracks (never "off").
    public func cycleAudioTrack() async throws {
        try await cycleTracks(of: .audio, allowingOff: false)
    }

    /// Turns every text track off.
    public func subtitlesOff() async throws {
        let media = try currentMedia()
        let textIDs = Set(media.media?.tracks.filter { $0.kind == .text }.map(\.trackID) ?? [])
        try await setActiveTracks(media.activeTrackIDs.filter { !textIDs.contains($0) })
    }

    /// Changes only the subtitle style.
    public func setTextTrackStyle(_ style: TextTrackStyle) async throws {
        let media = try currentMedia()
        try await setActiveTracks(media.activeTrackIDs, textTrackStyle: style)
    }

    private func cycleTracks(of kind: MediaTrack.Kind, allowingOff: Bool) async throws {
        let media = try currentMedia()
        let candidates = media.media?.tracks.filter { $0.kind == kind }.map(\.trackID) ?? []
        guard !candidates.isEmpty else {
            throw CastError(.unsupportedCommand, "the current media has no \(kind == .text ? "subtitle" : "audio") tracks")
        }
        let others = media.activeTrackIDs.filter { !candidates.contains($0) }
        let current = media.activeTrackIDs.first(where: candidates.contains)
        var choices: [Int?] = candidates.map { $0 }
        if allowingOff { choices.insert(nil, at: 0) }
        let position = choices.firstIndex(where: { $0 == current }) ?? 0
        let nextChoice = choices[(position + 1) % choices.count]
        try await setActiveTracks(others + (nextChoice.map { [$0] } ?? []))
    }

    // MARK: Helpers

    func currentMedia() throws -> MediaStatus {
        _ = try connectedChannel()
        guard let media = state.media else {
            throw CastError(.noMediaSession, "nothing is loaded on \(configuration.address)")
        }
        return media
    }

    /// Sends a media command for the current media session, refusing it
    /// locally when the receiver does not list it in supportedMediaCommands.
    func mediaCommand(_ make: (Int) -> MediaRequest) async throws {
        let media = try currentMedia()
        try await mediaCommand(make(media.mediaSessionID))
    }

    func mediaCommand(_ request: MediaRequest) async throws {
        let channel = try connectedChannel()
        guard let application = state.application, let media = state.media else {
            throw CastError(.noMediaSession, "nothing is loaded on \(configuration.address)")
        }
        if let required = request.requiredCommand, !media.supportedCommands.contains(required) {
            let name = required.names.first ?? request.typeName
            throw CastError(.unsupportedCommand, "the receiver does not support \(name) for the current media; \(request.typeName) was not sent")
        }
        let reply = try await channel.request(namespace: CastNamespace.media, to: application.transportID,
                                              timeout: configuration.requestTimeout) {
            request.json(requestID: $0)
        }
        try expectMediaStatus(reply, for: request.typeName)
    }

    /// A MEDIA_STATUS reply passes (and is applied); error replies become `CastError`s.
    func expectMediaStatus(_ reply: CastReply, for request: String) throws {
        switch reply.type {
        case "MEDIA_STATUS":
            apply(mediaStatus: MediaStatus.entries(message: reply.body), arrival: reply.arrival)
            return
        case "LOAD_FAILED", "LOAD_CANCELLED":
            let detail = reply.body["detailedErrorCode"]?.intValue.map { " (detailed error \($0))" } ?? ""
            let error = CastError(.loadFailed, "\(request) failed: \(reply.type)\(detail); check the URL and content type", reason: reply.type)
            state.lastError = error
            throw error
        default:
            let reason = reply.reason.map { " \($0)" } ?? ""
            let error = CastError(.invalidRequest, "the receiver rejected \(request): \(reply.type)\(reason)", reason: reply.reason ?? reply.type)
            state.lastError = error
            throw error
        }
    }
}
