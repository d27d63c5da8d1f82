#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch

/// Delivers POSIX signals as an `AsyncStream` through Dispatch signal sources,
/// so shutdown is handled in ordinary async code.
public enum SignalStream {
    /// Ignores the default action of `signals` and yields each delivery.
    public static func watch(_ signals: [Int32]) -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let queue = DispatchQueue(label: "cast-gateway.signals")
            var sources: [DispatchSourceSignal] = []
            for number in signals {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { continuation.yield(number) }
                source.resume()
                sources.append(source)
            }
            let retained = UncheckedSendable(sources)
            continuation.onTermination = { _ in
                for source in retained.value { source.cancel() }
            }
        }
    }

    /// Ignores SIGPIPE so a peer closing a socket cannot kill the process.
    public static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}
