import SystemSupport
/// Runs the service that the newest settings call for, and replaces it when
/// they change (a live reload): the old one is cancelled and awaited before
/// the new one starts, so a device is never opened twice. Settings that did
/// not change leave the running service alone.
///
/// A failure of the inner service is this service's failure: it reaches the
/// `ServiceGroup`, which logs and reports it and restarts this service (and so
/// a fresh inner one, for the settings then in force) with backoff. An inner
/// service that returns on its own has nothing more to do until the settings change.
public struct ReconfigurableService<Settings: Sendable, Part: Equatable & Sendable>: Service {
    public let name: String
    private let settings: StateBroadcaster<Settings>
    private let part: @Sendable (Settings) -> Part
    private let make: @Sendable (Part) -> (any Service)?

    /// `part` picks what this service depends on; `make` builds the service
    /// for it (nil: nothing to run, e.g. the console is `none`).
    public init(name: String, settings: StateBroadcaster<Settings>, part: @escaping @Sendable (Settings) -> Part,
                make: @escaping @Sendable (Part) -> (any Service)?) {
        self.name = name
        self.settings = settings
        self.part = part
        self.make = make
    }

    public func run() async throws {
        var current = part(settings.current)
        while !Task.isCancelled {
            let service = make(current)
            let settings = self.settings, part = self.part, running = current
            // The first new settings end this generation; a failure ends it by throwing.
            let next: Part? = try await withThrowingTaskGroup(of: Part?.self) { group in
                if let service {
                    group.addTask {
                        try await service.run()
                        return nil
                    }
                }
                group.addTask {
                    for await value in settings.subscribe() where part(value) != running { return part(value) }
                    return nil
                }
                while let result = try await group.next() {
                    if let result {
                        group.cancelAll()
                        return result
                    }
                }
                return nil
            }
            guard let next else { return }
            Logger(label: name).notice("settings changed: restarting \(name)")
            current = next
        }
    }
}
