import SystemSupport
/// A long-running part of the daemon: an input source, the console, the LEDs,
/// discovery, the Cast session owner, the media server, the MQTT client.
///
/// `run()` does the part's work until its task is cancelled, which is the
/// request for a graceful stop: release devices, close sockets, then return.
/// Throwing reports a failure; the `ServiceGroup` logs it with the service's
/// name, reports it (status, LEDs, MQTT) and, when the service allows it,
/// restarts it with backoff. A failing service never takes the others down.
/// Modelled on swift-service-lifecycle's `Service`, which is not a dependency.
public protocol Service: Sendable {
    /// A short name for log lines and `status` (`lirc`, `console`, `mqtt`).
    var name: String { get }
    /// Whether the group restarts the service with backoff after a failure,
    /// or after it returned without being asked to stop.
    var restartsAfterFailure: Bool { get }
    /// Whether the service says when it is up, by calling
    /// `ServiceStart.running()` from `run()`: the group starts the next
    /// service only then. Otherwise the service counts as running as soon as
    /// its `run()` is entered, and must not rely on anything the services
    /// before it set up asynchronously.
    var signalsRunning: Bool { get }
    func run() async throws
}

extension Service {
    public var restartsAfterFailure: Bool { true }
    public var signalsRunning: Bool { false }
}

/// How a service tells its group that it is up (see `Service.signalsRunning`).
public enum ServiceStart {
    /// The latch of the service whose task this is; set by the group.
    @TaskLocal static var latch: StopSignal?

    /// Says that the calling service is up: the group goes on to start the
    /// next one. Later calls, and calls outside a group, do nothing.
    public static func running() {
        latch?.fire()
    }
}
