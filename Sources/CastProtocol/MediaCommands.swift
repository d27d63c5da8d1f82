/// The `supportedMediaCommands` bit set a receiver reports in MEDIA_STATUS.
public struct MediaCommands: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let pause = MediaCommands(rawValue: 1)
    public static let seek = MediaCommands(rawValue: 2)
    public static let streamVolume = MediaCommands(rawValue: 4)
    public static let streamMute = MediaCommands(rawValue: 8)
    public static let skipForward = MediaCommands(rawValue: 16)
    public static let skipBackward = MediaCommands(rawValue: 32)
    public static let queueNext = MediaCommands(rawValue: 64)
    public static let queuePrevious = MediaCommands(rawValue: 128)
    public static let queueShuffle = MediaCommands(rawValue: 256)
    public static let queueRepeatAll = MediaCommands(rawValue: 1024)
    public static let queueRepeatOne = MediaCommands(rawValue: 2048)
    public static let editTracks = MediaCommands(rawValue: 4096)
    public static let playbackRate = MediaCommands(rawValue: 8192)

    /// Names for messages (`pause`, `seek`, ...).
    public var names: [String] {
        let all: [(MediaCommands, String)] = [
            (.pause, "pause"), (.seek, "seek"), (.streamVolume, "stream volume"), (.streamMute, "stream mute"),
            (.skipForward, "skip forward"), (.skipBackward, "skip backward"), (.queueNext, "next"),
            (.queuePrevious, "previous"), (.queueShuffle, "shuffle"), (.queueRepeatAll, "repeat all"),
            (.queueRepeatOne, "repeat one"), (.editTracks, "track selection"), (.playbackRate, "playback rate"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}
