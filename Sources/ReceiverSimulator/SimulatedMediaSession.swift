import CastProtocol

/// The media player of the simulated app: a queue and a playback clock.
struct SimulatedMediaSession {
    var mediaSessionID: Int
    var items: [QueueItem]
    var currentIndex: Int
    var playerState: PlayerState
    var idleReason: String?
    var playbackRate: Double = 1
    var activeTrackIDs: [Int]
    var textTrackStyle: TextTrackStyle?
    var volume = CastVolume(level: 1, muted: false)
    var repeatMode = "REPEAT_OFF"
    /// Position at `anchorTime` (seconds of the simulator's clock).
    var anchorPosition: Double
    var anchorTime: Double
    var nextItemID: Int
    /// The duration assumed for BUFFERED media whose LOAD carries none: a real
    /// receiver learns it from the file, and without one SEEK would be refused.
    var defaultDuration: Double

    var current: QueueItem? { items.indices.contains(currentIndex) ? items[currentIndex] : nil }

    /// Nil for LIVE streams, which stay unseekable.
    var duration: Double? {
        guard let media = current?.media, media.streamType != .live else { return nil }
        return media.duration ?? defaultDuration
    }

    func position(at now: Double) -> Double {
        var position = anchorPosition
        if playerState == .playing { position += (now - anchorTime) * playbackRate }
        if let duration { position = min(position, duration) }
        return max(position, 0)
    }

    /// Re-anchors the clock (call before any state change).
    mutating func settle(at now: Double) {
        anchorPosition = position(at: now)
        anchorTime = now
    }

    var supportedCommands: MediaCommands {
        var commands: MediaCommands = [.pause, .streamVolume, .streamMute, .editTracks, .playbackRate]
        if duration != nil { commands.insert(.seek) }
        if currentIndex + 1 < items.count { commands.insert(.queueNext) }
        if currentIndex > 0 { commands.insert(.queuePrevious) }
        return commands
    }

    func status(at now: Double, includeMedia: Bool) -> MediaStatus {
        var media = current?.media
        if media != nil, media?.duration == nil, let duration { media?.duration = duration }
        if let style = textTrackStyle { media?.textTrackStyle = style }
        return MediaStatus(
            mediaSessionID: mediaSessionID, playerState: playerState, idleReason: idleReason,
            currentTime: position(at: now), playbackRate: playbackRate, supportedCommands: supportedCommands,
            volume: volume, currentItemID: current?.itemID, activeTrackIDs: activeTrackIDs, repeatMode: repeatMode,
            media: includeMedia ? media : nil, items: includeMedia ? items : nil)
    }

    /// Appends items, numbering them.
    mutating func insert(_ newItems: [QueueItem], before itemID: Int?) {
        var numbered = newItems
        for index in numbered.indices {
            numbered[index].itemID = nextItemID
            nextItemID += 1
        }
        if let itemID, let position = items.firstIndex(where: { $0.itemID == itemID }) {
            items.insert(contentsOf: numbered, at: position)
            if position <= currentIndex { currentIndex += numbered.count }
        } else {
            items.append(contentsOf: numbered)
        }
    }

    /// Moves to the item `offset` away; false at either end of the queue.
    mutating func jump(by offset: Int, at now: Double) -> Bool {
        let target = currentIndex + offset
        guard items.indices.contains(target) else { return false }
        currentIndex = target
        anchorPosition = items[target].startTime ?? 0
        anchorTime = now
        activeTrackIDs = []
        playerState = .playing
        idleReason = nil
        return true
    }
}
