#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Tells when a file is written, replaced or removed, through inotify on its
/// directory (a file replaced by rename is a new inode, so the directory is
/// what can be watched), delivered by a Dispatch read source: no polling.
public enum FileWatch {
    /// One element each time `path` may have changed (several changes may
    /// come as one); the stream ends when its consumer stops. Fails when the
    /// directory cannot be watched (it does not exist, no permission).
    public static func changes(of path: String) throws(SystemError) -> AsyncStream<Void> {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        let watcher = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard watcher >= 0 else { throw SystemError.current("inotify_init1") }
        let mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF
        guard inotify_add_watch(watcher, directory, UInt32(mask)) >= 0 else {
            let error = SystemError.current("cannot watch \(directory)")
            _ = Glibc.close(watcher)
            throw error
        }
        let notify = FileDescriptor(rawValue: watcher)
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let queue = DispatchQueue(label: "cast-gateway.file-watch")
            let source = DispatchSource.makeReadSource(fileDescriptor: notify.rawValue, queue: queue)
            source.setEventHandler {
                var buffer = [UInt8](repeating: 0, count: 4096)
                // Drained: the events only say "look again" (the caller reads the file).
                while ((try? notify.read(into: &buffer)) ?? 0) > 0 {}
                continuation.yield()
            }
            source.setCancelHandler { notify.close() }
            source.resume()
            let retained = UncheckedSendable(source)
            continuation.onTermination = { _ in retained.value.cancel() }
        }
    }
}
