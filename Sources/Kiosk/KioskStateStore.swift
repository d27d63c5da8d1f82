import CastProtocol
import Dispatch
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

    public init(itemIndex: Int, source: String, position: Double) {
        self.itemIndex = itemIndex
        self.source = source
        self.position = position
    }

    var json: JSONValue {
        ["version": 1, "item": .int(itemIndex), "source": .string(source), "position": .number(position)]
    }

    /// From the file's JSON; nil when it is not a state this version wrote.
    init?(json: JSONValue) {
        guard let index = json["item"]?.intValue, index >= 0, index < Playlist.maximumItems,
              let source = json["source"]?.stringValue, !source.isEmpty,
              let position = json["position"]?.doubleValue, position.isFinite, position >= 0, position < 1e9 else { return nil }
        self.init(itemIndex: index, source: source, position: position)
    }
}

/// The saved state in `kiosk-state.json`, replaced atomically (temporary
/// file, fsync, rename) on a queue of its own: fsync on an SD card may
/// block for a while, and never on the cooperative pool.
public final class KioskStateStore: Sendable {
    public let path: String
    private let queue = DispatchQueue(label: "cast-gateway.kiosk-state")
    private let logger = Logger(label: "kiosk")
    /// A state directory that cannot be written is reported once, not every few seconds.
    private let problem = Mutex(RecurringProblem())

    public init(path: String) {
        self.path = path
    }

    /// The saved state, if the file exists and is valid.
    public func load() -> KioskSavedState? {
        guard FileSystem.exists(path) else { return nil }
        do {
            let text = try FileSystem.readText(path, limit: 256 * 1024)
            guard let state = KioskSavedState(json: try JSONValue(parsing: text)) else {
                logger.warning("ignoring \(path): not a kiosk state this version understands; starting from the first item")
                return nil
            }
            return state
        } catch {
            logger.warning("ignoring \(path): \(error); starting from the first item")
            return nil
        }
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
                self.problem.withLock { $0.clear() }
            } catch {
                self.problem.withLock {
                    $0.report("cannot save the kiosk's position: \(error) (check [kiosk] state-directory and its permissions)", to: logger)
                }
            }
        }
    }

    /// Waits until every save asked for so far is on storage.
    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }
}
