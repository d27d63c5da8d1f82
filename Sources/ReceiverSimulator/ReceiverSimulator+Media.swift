import CastProtocol
import JSON

extension ReceiverSimulator {
    func handleMedia(_ type: String, _ json: JSONValue, _ message: CastMessage, on connection: Connection) {
        let requestID = json["requestId"]?.intValue ?? 0
        guard let running = app, message.destinationID == running.application.transportID else {
            send(message.reply(json: invalidRequest(requestID, "INVALID_COMMAND")), on: connection)
            return
        }
        let transportID = running.application.transportID
        func status(includeMedia: Bool = true) -> JSONValue {
            MediaStatus.message(media.map { [$0.status(at: now, includeMedia: includeMedia)] } ?? [], requestID: requestID)
        }
        func answer(includeMedia: Bool = false) {
            reply(status(includeMedia: includeMedia), to: message, on: connection, broadcastFrom: transportID)
            schedulePlaybackEnd()
        }
        func error(_ json: JSONValue) { send(message.reply(json: json), on: connection) }

        switch type {
        case "GET_STATUS":
            send(message.reply(json: status()), on: connection)
            return
        case "LOAD":
            guard !configuration.faults.failLoads, let info = MediaInformation(json: json["media"]) else {
                error(["type": "LOAD_FAILED", "requestId": .int(requestID), "detailedErrorCode": 321])
                return
            }
            if let probe = configuration.mediaProbe {
                fetchThenLoad(info, request: json, message: message, on: connection, probe: probe)
                return
            }
            let item = QueueItem(media: info, autoplay: json["autoplay"]?.boolValue ?? true,
                                 startTime: json["currentTime"]?.doubleValue)
            startSession([item], startIndex: 0,
                         activeTrackIDs: json["activeTrackIds"]?.arrayValue?.compactMap(\.intValue) ?? [])
            answer(includeMedia: true)
            return
        case "QUEUE_LOAD":
            let items = json["items"]?.arrayValue?.compactMap(QueueItem.init(json:)) ?? []
            guard !items.isEmpty else {
                error(invalidRequest(requestID, "INVALID_PARAMS"))
                return
            }
            startSession(items, startIndex: json["startIndex"]?.intValue ?? 0, activeTrackIDs: [])
            if let mode = json["repeatMode"]?.stringValue { media?.repeatMode = mode }
            answer(includeMedia: true)
            return
        default:
            break
        }

        // Everything else needs the current media session.
        guard var session = media else {
            error(invalidRequest(requestID, "INVALID_MEDIA_SESSION_ID"))
            return
        }
        guard json["mediaSessionId"]?.intValue == session.mediaSessionID else {
            error(invalidRequest(requestID, "INVALID_MEDIA_SESSION_ID"))
            return
        }
        session.settle(at: now)
        var includeMedia = false
        switch type {
        case "PLAY":
            guard session.current != nil else {
                error(["type": "INVALID_PLAYER_STATE", "requestId": .int(requestID)])
                return
            }
            session.playerState = .playing
            session.idleReason = nil
        case "PAUSE":
            guard session.playerState != .idle else {
                error(["type": "INVALID_PLAYER_STATE", "requestId": .int(requestID)])
                return
            }
            session.playerState = .paused
        case "STOP":
            session.playerState = .idle
            session.idleReason = "CANCELLED"
        case "SEEK":
            guard session.supportedCommands.contains(.seek) else {
                error(invalidRequest(requestID, "INVALID_COMMAND"))
                return
            }
            var target = session.anchorPosition
            if let absolute = json["currentTime"]?.doubleValue { target = absolute }
            if let relative = json["relativeTime"]?.doubleValue { target += relative }
            session.anchorPosition = min(max(target, 0), session.duration ?? .infinity)
            switch json["resumeState"]?.stringValue {
            case "PLAYBACK_START": session.playerState = .playing
            case "PLAYBACK_PAUSE": session.playerState = .paused
            default: break
            }
        case "QUEUE_UPDATE", "QUEUE_NEXT", "QUEUE_PREV":
            let jump = type == "QUEUE_NEXT" ? 1 : type == "QUEUE_PREV" ? -1 : (json["jump"]?.intValue ?? 0)
            if jump != 0 {
                guard session.jump(by: jump, at: now) else {
                    error(invalidRequest(requestID, "END_OF_QUEUE"))
                    return
                }
                includeMedia = true
            }
        case "QUEUE_INSERT":
            let items = json["items"]?.arrayValue?.compactMap(QueueItem.init(json:)) ?? []
            guard !items.isEmpty else {
                error(invalidRequest(requestID, "INVALID_PARAMS"))
                return
            }
            session.insert(items, before: json["insertBefore"]?.intValue)
            includeMedia = true
        case "EDIT_TRACKS_INFO":
            let known = Set(session.current?.media.tracks.map(\.trackID) ?? [])
            if let ids = json["activeTrackIds"]?.arrayValue?.compactMap(\.intValue) {
                guard ids.allSatisfy(known.contains) else {
                    error(invalidRequest(requestID, "INVALID_PARAMS"))
                    return
                }
                session.activeTrackIDs = ids
            }
            if let style = json["textTrackStyle"] {
                session.textTrackStyle = TextTrackStyle(json: style)
                includeMedia = true
            }
        case "SET_PLAYBACK_RATE":
            guard let rate = json["playbackRate"]?.doubleValue, rate >= 0.5, rate <= 2 else {
                error(invalidRequest(requestID, "INVALID_PARAMS"))
                return
            }
            session.playbackRate = rate
        case "SET_VOLUME":
            if let level = json["volume"]?["level"]?.doubleValue { session.volume.level = min(max(level, 0), 1) }
            if let muted = json["volume"]?["muted"]?.boolValue { session.volume.muted = muted }
        default:
            error(invalidRequest(requestID, "INVALID_COMMAND"))
            return
        }
        media = session
        playbackGeneration += 1
        answer(includeMedia: includeMedia)
    }

    func startSession(_ items: [QueueItem], startIndex: Int, activeTrackIDs: [Int]) {
        var session = SimulatedMediaSession(
            mediaSessionID: nextMediaSessionID, items: [], currentIndex: 0, playerState: .playing,
            activeTrackIDs: activeTrackIDs, anchorPosition: 0, anchorTime: now, nextItemID: 1,
            defaultDuration: configuration.defaultDuration)
        nextMediaSessionID += 1
        session.insert(items, before: nil)
        session.currentIndex = min(max(startIndex, 0), session.items.count - 1)
        session.anchorPosition = session.current?.startTime ?? 0
        session.playerState = (session.current?.autoplay ?? true) ? .playing : .paused
        media = session
        playbackGeneration += 1
        logger.info("playing \(session.current?.media.metadata?.title ?? session.current?.media.contentID ?? "?")")
    }

    /// Wakes when the current item ends, then advances the queue or goes idle
    /// (FINISHED) and broadcasts, as a real player does.
    func schedulePlaybackEnd() {
        guard let session = media, session.playerState == .playing, let duration = session.duration else { return }
        let remaining = (duration - session.position(at: now)) / max(session.playbackRate, 0.01)
        let generation = playbackGeneration
        // The end is fixed now, not when the task first runs: on a busy
        // machine (or a manual clock moved on meanwhile) a task that starts
        // late must not end the item late.
        let end = timeSource.now + .seconds(fractional: max(remaining, 0) + 0.05)
        let timeSource = self.timeSource
        Task {
            try? await timeSource.sleep(until: end)
            self.playbackEnded(generation: generation)
        }
    }

    private func playbackEnded(generation: Int) {
        guard generation == playbackGeneration, var session = media, let transportID = app?.application.transportID else { return }
        session.settle(at: now)
        if !session.jump(by: 1, at: now) {
            session.playerState = .idle
            session.idleReason = "FINISHED"
        }
        media = session
        playbackGeneration += 1
        broadcastMediaStatus(from: transportID)
        schedulePlaybackEnd()
        persistState()
    }

    func broadcastMediaStatus(from transportID: String) {
        let entries = media.map { [$0.status(at: now, includeMedia: true)] } ?? []
        broadcastFrom(transportID, namespace: CastNamespace.media, json: MediaStatus.message(entries, requestID: 0))
    }
}
