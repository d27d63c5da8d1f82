#if canImport(Glibc)
import Glibc
#endif
import GatewayCore
import MediaServer
import ServiceLifecycle
import SystemSupport

/// The `[media]` service: the server follows the receiver's address (it
/// listens on the local address of the route to it) and is the current one
/// for local paths while it runs.
struct MediaService: Service {
    let name = "media"
    let settings: MediaServerSettings
    let gateway: Gateway
    let locator: CurrentMediaServer

    func run() async throws {
        let server = try MediaServer(settings: settings)
        locator.set(server)
        defer { locator.set(nil) }
        let states = gateway.states()
        let addresses = AsyncStream<String> { continuation in
            // Follows the gateway's state for this server's lifetime; ends with the stream.
            let task = Task {
                var last: String?
                for await state in states {
                    guard let host = MediaService.numericHost(of: state.deviceAddress), host != last else { continue }
                    last = host
                    continuation.yield(host)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        // A listen that fails (port in use) is retried by the service and shown in `status` meanwhile.
        let gateway = self.gateway
        let service = MediaServerService(server: server, receiverAddresses: addresses) { problem in
            await gateway.setServiceProblem(problem, for: "media")
        }
        // Awaited, not deferred to a task: a reload's next instance may report anew.
        do {
            try await service.run()
        } catch {
            await gateway.setServiceProblem(nil, for: "media")
            throw error
        }
        await gateway.setServiceProblem(nil, for: "media")
    }

    /// `192.168.1.20` of `192.168.1.20:8009`, `fe80::1` of `[fe80::1]:8009`; nil for a name.
    static func numericHost(of address: String) -> String? {
        guard let host = try? HostPort.parse(address, defaultPort: 8009).host else { return nil }
        var v4 = in_addr(), v6 = in6_addr()
        let bare = String(host.split(separator: "%", maxSplits: 1).first ?? "")
        return inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1 ? host : nil
    }
}
