#if canImport(Glibc)
import Glibc
#endif

/// Open file descriptors of this process (entries of /proc/self/fd), for
/// tests asserting that failed attempts give back what they opened.
public func openFileDescriptorCount() -> Int {
    guard let directory = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != ".", name != ".." { count += 1 }
    }
    return count - 1  // the directory stream's own descriptor
}
