import CastProtocol

/// Where the link to the device stands.
public enum ConnectionPhase: Sendable, Equatable {
    /// Not started, or stopped.
    case idle
    case connecting
    case connected
    /// Lost or failed; the next attempt starts after `retryIn`.
    case waitingToReconnect(attempt: Int, retryIn: Duration)
}

/// A snapshot of everything the client knows about the device.
public struct CastClientState: Sendable, Equatable {
    /// `host:port` of the device.
    public var deviceAddress: String
    public var phase: ConnectionPhase
    public var receiver: ReceiverStatus?
    /// The foreground app whose media channel the client follows.
    public var application: ReceiverApplication?
    public var media: MediaStatus?
    /// `TimeSource.now` when `media` was last updated (for extrapolating the position).
    public var mediaUpdatedAt: Duration
    public var lastError: CastError?
    /// Whether a media status (possibly empty) has arrived for `application`.
    public var mediaKnown = false
    /// Device authentication of the current (or last) connection.
    public var authentication = DeviceAuthState.off

    public init(deviceAddress: String) {
        self.deviceAddress = deviceAddress
        phase = .idle
        mediaUpdatedAt = .zero
    }

    /// The playback position now, extrapolated from the last status while playing.
    public func position(at now: Duration) -> Double? {
        guard let media else { return nil }
        var position = media.currentTime
        if media.playerState == .playing {
            position += (now - mediaUpdatedAt).seconds * media.playbackRate
        }
        if let duration = media.media?.duration, duration > 0 {
            position = min(position, duration)
        }
        return max(position, 0)
    }
}
