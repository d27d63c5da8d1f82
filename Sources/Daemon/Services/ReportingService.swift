import ServiceLifecycle
import SystemSupport

/// Runs a service whose reports come from a synchronous callback (a library's
/// queue) and hands them, in order, to an async consumer (the gateway's
/// actor). One task owns the hop: a `Task {}` per report could apply an older
/// report after a newer one, and would outlive the service.
struct ReportingService<Report: Sendable>: Service {
    let inner: any Service
    let reports: AsyncStream<Report>
    let consume: @Sendable (Report) async -> Void
    /// Consumed when the inner service has ended: what it reported no longer holds.
    let cleared: Report

    var name: String { inner.name }

    /// Builds the inner service with a callback that reports into the stream;
    /// only the newest unconsumed report is kept.
    init(cleared: Report, consume: @escaping @Sendable (Report) async -> Void,
         make: (_ report: @escaping @Sendable (Report) -> Void) -> any Service) {
        let (reports, sink) = AsyncStream.makeStream(of: Report.self, bufferingPolicy: .bufferingNewest(1))
        self.reports = reports
        self.consume = consume
        self.cleared = cleared
        inner = make { sink.yield($0) }
    }

    func run() async throws {
        // However it ends (stopped, failed, or removed by a reload), its last
        // report is withdrawn, after the consumer has ended: nothing older follows.
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [reports, consume] in
                    for await report in reports { await consume(report) }
                }
                try await inner.run()
                group.cancelAll()
            }
        } catch {
            await consume(cleared)
            throw error
        }
        await consume(cleared)
    }
}
