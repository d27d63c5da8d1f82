#if canImport(Glibc)
import Glibc
#endif

/// What each open file descriptor of this process refers to (the targets of
/// /proc/self/fd), e.g. `socket:[1234]` or `/dev/null`.
public func openFileDescriptorTargets() -> [String] {
    guard let directory = opendir("/proc/self/fd") else { return [] }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var targets: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let fd = Int32(name), fd != own else { continue }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/fd/\(name)", &buffer, buffer.count - 1)
        targets.append(length > 0 ? String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?")
    }
    return targets
}

/// Open file descriptors of this process, for tests asserting that failed
/// attempts give back what they opened. Dispatch's timer descriptors are not
/// counted: Dispatch creates one per clock the first time a timer uses it,
/// and keeps it (a one-off, not a leak).
public func openFileDescriptorCount() -> Int {
    openFileDescriptorTargets().filter { $0 != "anon_inode:[timerfd]" }.count
}
