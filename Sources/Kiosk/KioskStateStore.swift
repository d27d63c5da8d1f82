import Dispatch
import JSON
import Synchronization
import SystemSupport

/// What the kiosk saves so that it resumes after a power cut or `kill -9`.
public struct KioskSavedState: Sendable, Equatable {
    /// Index in the playlist's items.
    public var itemIndex: Int
    /// The item's URL or path as written in the playlist.
    public var source: String
    /// Seconds into the item.
    public var position: Double
    /// The item's length as the receiver reported it, when known.
    public var duration: Double?

    /// The furthest a saved position may be when the item's length is not known (24 h).
    public static let maximumPosition = 86_400.0

    public init(itemIndex: Int, source: String, position: Double, duration: Double? = nil) {
        self.itemIndex = itemIndex
        self.source = source
        self.position = position
        self.duration = duration
    }

    var json: JSONValue {
        var object: JSONObject = ["version": 1, "item": .int(itemIndex), "source": .string(source), "position": .number(position)]
        if let duration { object["duration"] = .number(duration) }
        return .object(object)
    }

    /// A valid length: finite, positive, at most a day.
    static func validDuration(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value > 0 else { return nil }
        return min(value, maximumPosition)
    }

    /// From the file's JSON (untrusted: anyone who can write the file can put
    /// anything there); nil when it is not a state this version wrote. A
    /// position that is not a number of seconds from 0 becomes 0, one past the
    /// item's length (or a day, when the length is unknown) is brought back to it;
    /// `note` says which.
    init?(json: JSONValue, note: inout String?) {
        guard let index = json["item"]?.intValue, index >= 0, index < Playlist.maximumItems,
              let source = json["source"]?.stringValue, !source.isEmpty else { return nil }
        let duration = KioskSavedState.validDuration(json["duration"]?.doubleValue)
        var position = 0.0
        if let value = json["position"]?.doubleValue, value.isFinite, value >= 0 {
            let limit = duration ?? KioskSavedState.maximumPosition
            if value > limit {
                note = "the saved position \(KioskSavedState.secondsText(value)) s is past "
                    + (duration == nil ? "the longest resumable position" : "the item's end")
                    + " (\(KioskSavedState.secondsText(limit)) s): resuming at \(KioskSavedState.secondsText(limit)) s"
            }
            position = min(value, limit)
        } else {
            note = "the saved position \(json["position"]?.serialized ?? "(missing)") is not a position in seconds from 0: the item starts from the beginning"
        }
        self.init(itemIndex: index, source: source, position: position, duration: duration)
    }

    static func secondsText(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// The saved state in `kiosk-state.json`, replaced atomically (temporary
/// file, fsync, rename) on a queue of its own: fsync on an SD card may
/// block for a while, and never on the cooperative pool.
public final class KioskStateStore: Sendable {
    public let path: String
    private let queue = DispatchQueue(label: "cast-gateway.kiosk-state")
    private let logger = Logger(label: "kiosk")
    /// Why saving fails now (nil: it works): a state directory that cannot be
    /// written is reported once when it starts failing, not every few seconds.
    private let failure = Mutex<String?>(nil)

    /// The largest state file read (a valid one is under 5 KiB).
    static let maximumSize = 256 * 1024

    public init(path: String) {
        self.path = path
    }

    /// The saved state, read on the store's queue (off the cooperative pool).
    public func loadInBackground() async -> KioskSavedState? {
        await withCheckedContinuation { (continuation: CheckedContinuation<KioskSavedState?, Never>) in
            queue.async { continuation.resume(returning: self.load()) }
        }
    }

    /// The saved state, if the file exists and is valid. Never blocks on a
    /// FIFO or device put at the path: only a regular file is read.
    public func load() -> KioskSavedState? {
        let text: String
        do {
            guard let read = try FileSystem.readRegularFile(path, limit: KioskStateStore.maximumSize) else { return nil }
            text = read
        } catch {
            logger.warning("ignoring \(path): \(error); starting from the first item")
            return nil
        }
        var note: String?
        guard let json = try? JSONValue(parsing: text), let state = KioskSavedState(json: json, note: &note) else {
            logger.warning("ignoring \(path): not a kiosk state this version understands; starting from the first item")
            return nil
        }
        if let note { logger.warning("\(path): \(note)") }
        return state
    }

    /// Saves `state` (nil: removes the file) in the background, in order.
    public func save(_ state: KioskSavedState?) {
        let path = self.path, logger = self.logger
        queue.async { [self] in
            do {
                if let state {
                    try FileSystem.createDirectory(KioskSettings.directory(of: path))
                    try FileSystem.writeAtomically(path, bytes: Array(state.json.serialized.utf8), mode: 0o600)
                } else if FileSystem.exists(path) {
                    try FileSystem.remove(path)
                }
                if self.failure.withLock({ failure in defer { failure = nil }; return failure != nil }) {
                    logger.notice("the kiosk's position is saved again to \(path)")
                }
            } catch {
                let message = "cannot save the kiosk's position to \(path): \(error); after a restart the loop may not resume where it was"
                    + " (check that [kiosk] state-directory is a writable directory with free space)"
                let first = self.failure.withLock { failure in defer { failure = message }; return failure == nil }
                logger.log(first ? .warning : .debug, message)
            }
        }
    }

    /// Why the last save failed, or nil when it worked (`playlist status`).
    public var saveProblem: String? { failure.withLock { $0 } }

    /// Waits until every save asked for so far is on storage.
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}
