#if canImport(Glibc)
import Glibc
#endif
import SystemSupport
import TestSupport
import XCTest
@testable import Discovery

/// The Avahi client's retry loop where it matters most: no D-Bus system bus
/// (the test points libdbus at a socket that does not exist), so every
/// client creation fails and is retried on a short backoff.
final class AvahiClientOwnerTests: XCTestCase {
    private var savedAddress: String?

    override func setUp() {
        savedAddress = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) }
        setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/cast-gateway-test/system_bus_socket", 1)
    }

    override func tearDown() {
        // Never unsetenv: the next setenv would then grow glibc's environment
        // array and free the old one under another thread's getenv. With no
        // variable before, libdbus's default address is the same as unset.
        setenv("DBUS_SYSTEM_BUS_ADDRESS", savedAddress ?? "unix:path=/var/run/dbus/system_bus_socket", 1)
    }

    private func browser() throws -> AvahiBrowser {
        try AvahiBrowser(serviceType: "_cast-gateway-test._tcp",
                         retryBackoff: Backoff(initial: .milliseconds(1), maximum: .milliseconds(2), jitter: 0.5))
    }

    /// Waits for `count` failed client creations.
    private func failures(_ count: Int, from events: inout AsyncStream<DiscoveryEvent>.Iterator) async -> [String] {
        var messages: [String] = []
        while messages.count < count, let event = await events.next() {
            if case .unavailable(let message) = event { messages.append(message) }
        }
        return messages
    }

    /// Issue 9 §6: `stop()` wrote `stopped` and `retryTask` without the poll
    /// lock while `scheduleRetry` wrote `retryTask` on the poll thread. Now
    /// both sides hold the lock (asserted where the state is touched), and a
    /// stop that lands in the middle of a retry leaves nothing running.
    func testStopRacingRetriesLeavesNothingRunning() async throws {
        for round in 0..<200 {
            let browser = try browser()
            browser.start()
            var events = browser.events.makeAsyncIterator()
            let failed = await failures(1 + round % 3, from: &events)
            XCTAssertEqual(failed.count, 1 + round % 3)
            XCTAssertTrue(failed.allSatisfy { $0.contains("D-Bus") }, "\(failed)")
            browser.stop()  // from this thread, while a retry task or the poll thread may be retrying
            let (stopped, createdAtStop) = browser.stoppedAndClientsCreated
            XCTAssertTrue(stopped)
            await browser.cancelledRetryFinished()
            XCTAssertEqual(browser.stoppedAndClientsCreated.clientsCreated, createdAtStop, "a client was created after stop()")
            while await events.next() != nil {}  // stop() finishes the stream
            browser.withPollLock { XCTAssertNil(browser.client) }
            if round == 0 { XCTAssertGreaterThanOrEqual(createdAtStop, 1) }
        }
    }

    /// Issue 8 §2 audit: a failed Avahi client creation gives back its descriptors.
    func testFiftyFailedClientCreationsLeakNoDescriptors() async throws {
        do {  // warm up: the first client loads libdbus and may keep a descriptor for good
            let warmUp = try browser()
            warmUp.start()
            var events = warmUp.events.makeAsyncIterator()
            _ = await failures(2, from: &events)
            warmUp.stop()
        }
        let baseline = openFileDescriptorCount()
        let browser = try browser()
        browser.start()
        var events = browser.events.makeAsyncIterator()
        let failed = await failures(50, from: &events)
        XCTAssertEqual(failed.count, 50)
        let during = openFileDescriptorCount()
        browser.stop()
        // The poll thread's own pipe is open while it runs; 50 retries must not add to it.
        XCTAssertLessThanOrEqual(during, baseline + 4, "descriptors grew from \(baseline) to \(during) over 50 failed retries")
        XCTAssertGreaterThanOrEqual(browser.stoppedAndClientsCreated.clientsCreated, 50)
    }
}
