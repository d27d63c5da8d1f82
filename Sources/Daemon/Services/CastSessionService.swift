import Discovery
import GatewayCore
import ServiceLifecycle
import SystemSupport

/// Owns the Cast session: starts the gateway, feeds it what discovery sees,
/// and on stop leaves the device (the app on it keeps running). It is running
/// once the gateway has its target: the services after it can use the gateway.
public struct CastSessionService: Service {
    public let name = "session"
    public var signalsRunning: Bool { true }
    let gateway: Gateway
    let discovery: DeviceDiscovery?

    public init(gateway: Gateway, discovery: DeviceDiscovery?) {
        self.gateway = gateway
        self.discovery = discovery
    }

    public func run() async throws {
        await gateway.start()
        ServiceStart.running()
        if let discovery {
            let gateway = self.gateway
            await withDiscardingTaskGroup { group in  // until cancelled
                group.addTask {
                    for await wanted in gateway.discoveryRequests() where wanted {
                        discovery.browse()
                        break
                    }
                }
                group.addTask { await gateway.follow(discovery: discovery.snapshots()) }
            }
        }
        await waitUntilCancelled()
        await gateway.stop()
    }
}
