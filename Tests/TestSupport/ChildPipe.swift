#if canImport(Glibc)
import Glibc
#endif

/// A one-way channel for a child process's standard input or output, made
/// close-on-exec in the same call: a pipe(2) open at the moment another
/// test spawns its child would leak into that child, whose copy of the write
/// end then keeps this pipe's reader from ever seeing end of file. (pipe2 is
/// not visible from Swift's Glibc module; a socket pair behaves the same for
/// reading, writing and end of file.) Returns [read end, write end], or nil
/// with errno set.
public func closeOnExecPipe() -> [Int32]? {
    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else { return nil }
    // One way only, like a pipe.
    shutdown(fds[0], Int32(SHUT_WR))
    shutdown(fds[1], Int32(SHUT_RD))
    return fds
}
