/// A long-running part of the daemon: an input source, the console, the LEDs,
/// discovery, the Cast session owner, the media server, the MQTT client.
///
/// `run()` does the part's work until its task is cancelled, which is the
/// request for a graceful stop: release devices, close sockets, then return.
/// Throwing reports a failure; the `ServiceGroup` logs it with the service's
/// name and, when the service allows it, restarts it with backoff. A failing
/// service never takes the others down. Modelled on swift-service-lifecycle's
/// `Service`, which is not a dependency.
public protocol Service: Sendable {
    /// A short name for log lines and `status` (`lirc`, `console`, `mqtt`).
    var name: String { get }
    /// Whether the group restarts the service with backoff after a failure,
    /// or after it returned without being asked to stop.
    var restartsAfterFailure: Bool { get }
    func run() async throws
}

extension Service {
    public var restartsAfterFailure: Bool { true }
}
