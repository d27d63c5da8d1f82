import CastClient
import CastProtocol
import GatewayModel

extension Gateway: ActionPerformer {
    /// Carries out `action`. Failures are returned to the caller, who reports
    /// them once (a console reply, a CLI error, a log line for a remote key),
    /// and shown in the state's `lastError`; state is never lost.
    public func perform(_ action: Action) async throws {
        do {
            try await execute(action)
            await record(nil)
        } catch {
            await record(error)
            throw error
        }
    }

    private func execute(_ action: Action) async throws {
        switch action {
        case .none: return
        case .preset(let number):
            guard let preset = settings.presets.presets[number] else {
                throw GatewayError(.unknownPreset, "preset \(number) is not set; add '\(number) = URL' under [presets]")
            }
            let request = try await resolvingLocalPath(CastRequest(url: preset.url, title: preset.title))
            try await requireClient().load(request.loadRequest, launching: launchSettings)
            return
        case .selectNextDevice:
            try await selectNextDevice()
            return
        case .tvPowerOn, .tvStandby, .tvSelectInput:
            try controlTV(action)
            return
        default:
            break
        }
        let client = try requireClient()
        switch action {
        case .play: try await client.play()
        case .pause: try await client.pause()
        case .toggle: try await client.togglePlayback()
        case .stop: try await client.stopMedia()
        case .next: try await client.next()
        case .previous: try await client.previous()
        case .seekBy(let seconds): try await client.seek(by: seconds)
        case .seekTo(let seconds): try await client.seek(to: seconds)
        case .volumeUp(let step): try await client.adjustVolume(by: step)
        case .volumeDown(let step): try await client.adjustVolume(by: -step)
        case .setVolume(let level): try await client.setVolume(level: level)
        case .toggleMute: try await client.toggleMute()
        case .setMuted(let muted): try await client.setMuted(muted)
        case .cycleSubtitles: try await client.cycleSubtitles()
        case .subtitlesOff: try await client.subtitlesOff()
        case .cycleAudioTrack: try await client.cycleAudioTrack()
        case .setPlaybackRate(let rate): try await client.setPlaybackRate(rate)
        case .launchApp: try await client.launch(launchSettings)
        case .stopApp: try await client.stopApplication()
        case .none, .preset, .selectNextDevice, .tvPowerOn, .tvStandby, .tvSelectInput: break
        }
    }

    /// Plays a URL now (launching the configured app if needed).
    public func cast(_ request: CastRequest) async throws {
        try await reporting {
            let resolved = request.isLocalFile ? try await self.resolvingLocalPath(request) : request
            try resolved.checkSize()
            try await self.requireClient().load(resolved.loadRequest, launching: self.launchSettings)
        }
    }

    /// Adds a URL to the queue (or plays it when nothing is loaded).
    public func enqueue(_ request: CastRequest) async throws {
        try await reporting {
            let resolved = request.isLocalFile ? try await self.resolvingLocalPath(request) : request
            try resolved.checkSize()
            try await self.requireClient().queueInsert([resolved.queueItem], launching: self.launchSettings)
        }
    }

    /// A request for a local file (`/srv/media/a.mp4`) as the receiver can
    /// fetch it: the media server's URL, its content type and sidecar subtitles.
    func resolvingLocalPath(_ request: CastRequest) async throws -> CastRequest {
        guard request.isLocalFile else { return request }
        guard let mediaLocator else {
            throw GatewayError(.badArgument, "\(request.url) is a local file: local files need the media server; set [media] roots")
        }
        let media: LocatedMedia
        do {
            media = try await mediaLocator.media(forLocalPath: request.url)
        } catch {
            throw GatewayError(.badArgument, "cannot serve \(request.url): \(error)")
        }
        var resolved = request
        resolved.url = media.url
        resolved.title = request.title ?? CastRequest.lastPathComponent(of: request.url)
        resolved.contentType = request.contentType ?? media.contentType
        if resolved.subtitlesURL == nil, let subtitles = media.subtitles.first {
            resolved.subtitlesURL = subtitles.url
            resolved.subtitlesLanguage = subtitles.language ?? "en"
        }
        return resolved
    }

    /// Launches `appID`, optionally allowing an Android TV receiver, with the launch credentials in force.
    public func launch(appID: String, allowsAndroidReceiver: Bool) async throws {
        try await reporting {
            var settings = self.launchSettings
            settings.appID = appID
            settings.allowsAndroidReceiver = allowsAndroidReceiver
            try await self.requireClient().launch(settings)
        }
    }

    /// Shows subtitle track `trackID` (keeping the audio track).
    public func selectSubtitleTrack(_ trackID: Int) async throws {
        try await reporting {
            let client = try self.requireClient()
            guard let media = self.clientState?.media, let tracks = media.media?.tracks,
                  tracks.contains(where: { $0.trackID == trackID && $0.kind == .text }) else {
                throw GatewayError(.badArgument, "there is no subtitle track \(trackID); 'status' lists the tracks")
            }
            let textIDs = Set(tracks.filter { $0.kind == .text }.map(\.trackID))
            try await client.setActiveTracks(media.activeTrackIDs.filter { !textIDs.contains($0) } + [trackID])
        }
    }

    /// The text tracks of the current media: (id, name, active).
    public func subtitleTracks() async -> [(id: Int, name: String, active: Bool)] {
        guard client != nil, let media = clientState?.media else { return [] }
        return (media.media?.tracks ?? []).filter { $0.kind == .text }.map { track in
            (track.trackID, track.name ?? track.language ?? "track \(track.trackID)", media.activeTrackIDs.contains(track.trackID))
        }
    }

    private func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
            await record(nil)
        } catch {
            await record(error)
            throw error
        }
    }
}
