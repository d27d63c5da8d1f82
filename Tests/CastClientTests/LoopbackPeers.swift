#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TLS

/// A plain TCP listener on 127.0.0.1 (any free port) that serves each
/// connection with `serve` on its own queue: a peer that is not a Cast
/// device. The test closes it; sockets it accepted are closed by `serve`.
final class PlainTCPPeer: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private let source: DispatchSourceRead

    /// `serve` gets the accepted (blocking) socket and must close it.
    init(serve: @escaping @Sendable (Int32) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PeerError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw PeerError("bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
        let queue = DispatchQueue(label: "test.plain-peer")
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            DispatchQueue.global().async { serve(client) }
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    func stop() { source.cancel() }

    /// Reads what the client sent first (its TLS ClientHello), then writes `reply` and closes.
    static func replying(_ reply: String) -> @Sendable (Int32) -> Void {
        { fd in
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(fd, &buffer, buffer.count)
            let bytes = Array(reply.utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            shutdown(fd, Int32(SHUT_WR))
            _ = read(fd, &buffer, buffer.count)  // until the client gives up
            close(fd)
        }
    }

    /// Reads the ClientHello, then closes without a word.
    static let closing: @Sendable (Int32) -> Void = { fd in
        var buffer = [UInt8](repeating: 0, count: 4096)
        _ = read(fd, &buffer, buffer.count)
        close(fd)
    }
}

/// A TLS server on 127.0.0.1 that answers whatever it receives with an HTTP
/// response, as an HTTPS server on the wrong port would.
final class HTTPSPeer: @unchecked Sendable {
    let port: UInt16
    private let listener: TLSListener
    private let serving: Task<Void, Never>

    init(response: String = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n") throws {
        listener = try TLSListener(port: 0, context: try TLSContext.server(commonName: "not-a-cast-device"))
        port = listener.port
        let connections = listener.connections
        serving = Task {
            for await connection in connections {
                Task {
                    do {
                        for try await _ in connection.inbound {
                            connection.enqueue(Array(response.utf8)) { _ in connection.close() }
                        }
                    } catch {}
                }
            }
        }
    }

    func stop() {
        listener.close()
        serving.cancel()
    }
}

struct PeerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
