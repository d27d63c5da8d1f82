import ServiceLifecycle
import SystemSupport

/// A service run by a test: started in a task, stopped (cancelled and
/// awaited) by the test, even when an assertion fails first.
public final class RunningService: Sendable {
    private let task: Task<Void, Never>

    public init(_ service: any Service) {
        task = Task { try? await service.run() }
    }

    /// Cancels the service (its graceful stop) and waits until it has returned.
    public func stop() async {
        task.cancel()
        await task.value
    }

    /// Cancels without waiting (for `defer` in synchronous contexts).
    public func cancel() { task.cancel() }
}
