import SystemSupport

/// Runs a service whose reports come from a synchronous callback (a library's
/// queue) and hands them, in order, to an async consumer (the gateway's
/// actor). One task owns the hop: a `Task {}` per report could apply an older
/// report after a newer one, and would outlive the service.
struct ReportingService<Report: Sendable>: Service {
    let inner: any Service
    let reports: AsyncStream<Report>
    let consume: @Sendable (Report) async -> Void

    var name: String { inner.name }

    /// Builds the inner service with a callback that reports into the stream;
    /// only the newest unconsumed report is kept.
    init(consume: @escaping @Sendable (Report) async -> Void,
         make: (_ report: @escaping @Sendable (Report) -> Void) -> any Service) {
        let (reports, sink) = AsyncStream.makeStream(of: Report.self, bufferingPolicy: .bufferingNewest(1))
        self.reports = reports
        self.consume = consume
        inner = make { sink.yield($0) }
    }

    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [reports, consume] in
                for await report in reports { await consume(report) }
            }
            try await inner.run()
            group.cancelAll()
        }
    }
}
