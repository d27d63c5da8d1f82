import SystemSupport
import Dispatch

/// A device that comes and goes (lircd's socket, an input device, a tty, a
/// CEC adapter) says how to open it and how to serve it once open; the
/// `ReopeningSource` does the rest.
public protocol ReopenableDevice: Sendable {
    associatedtype Handle: Sendable
    /// Opens the device. Blocking calls are fine: it runs on the source's
    /// Dispatch queue, never on the cooperative pool. Throwing means "not
    /// there now, retry"; throw `DeviceProblem.permanent` when retrying cannot help.
    func open() throws -> Handle
    /// Serves the open device until it is lost, and returns why. When the task
    /// is cancelled, releases the device and returns. Dispatch sources it
    /// needs run on `queue`, the queue `open` ran on.
    func serve(_ handle: Handle, on queue: DispatchQueue) async -> String
}

/// A reason not to retry (a configuration the hardware cannot do).
public struct DeviceProblem: Error, CustomStringConvertible, Sendable {
    public let description: String
    public let isPermanent: Bool

    public static func permanent(_ message: String) -> DeviceProblem { DeviceProblem(description: message, isPermanent: true) }
    public static func retry(_ message: String) -> DeviceProblem { DeviceProblem(description: message, isPermanent: false) }
}

/// The one "open, serve, and reopen with backoff" loop shared by every input
/// device, as a `Service`. The backoff runs on the injected `TimeSource`, so
/// tests drive fifty failed retries in milliseconds on a manual clock. A
/// problem is a warning when it is new and debug while it repeats, and is
/// reported through `availability` (nil when the device works).
public struct ReopeningSource<Device: ReopenableDevice>: Service {
    public let name: String
    public let device: Device
    private let queue: DispatchQueue
    private let timeSource: any TimeSource
    private let backoff: Backoff
    private let availability: @Sendable (String?) async -> Void
    /// Whether problems are only worth a debug line (an optional device that
    /// the configuration does not ask for, watched in case it appears).
    private let quiet: Bool

    public init(name: String, device: Device, queue: DispatchQueue, timeSource: any TimeSource = SystemTimeSource(),
                backoff: Backoff = Backoff(initial: .milliseconds(500), maximum: .seconds(30)), quiet: Bool = false,
                availability: @escaping @Sendable (String?) async -> Void = { _ in }) {
        self.name = name
        self.quiet = quiet
        self.device = device
        self.queue = queue
        self.timeSource = timeSource
        self.backoff = backoff
        self.availability = availability
    }

    public func run() async throws {
        let logger = Logger(label: name)
        var backoff = self.backoff
        var recurring = RecurringProblem()
        while !Task.isCancelled {
            let problem: String
            do {
                let device = self.device
                let handle = try await queue.perform { try device.open() }
                backoff.reset()
                recurring.clear()
                await availability(nil)
                let reason = await device.serve(handle, on: queue)
                if Task.isCancelled { return }
                problem = reason
            } catch let error as DeviceProblem where error.isPermanent {
                logger.error(error.description)
                await availability(error.description)
                await waitUntilCancelled()  // retrying cannot help
                return
            } catch {
                problem = "\(error)"
            }
            if Task.isCancelled { return }
            if quiet {
                logger.debug(problem + " (retrying)")
            } else {
                recurring.report(problem + " (retrying)", to: logger)
                await availability(problem)
            }
            try await timeSource.sleep(for: backoff.nextDelay())
        }
    }
}
