import Commands
import GatewayModel
import Synchronization
import TestSupport
import XCTest

/// Steps from front ends that answer (console, MQTT) share the remote's
/// coalescing, and each is answered with the outcome of the request that carried it.
final class ActionSchedulerFrontEndTests: XCTestCase {
    private struct Refused: Error, CustomStringConvertible {
        var description: String { "the receiver refused SET_VOLUME" }
    }

    private final class Receiver: Sendable {
        let performed = Mutex<[Action]>([])
        let held = Mutex<[CheckedContinuation<Void, Never>]>([])
        let unanswered = Mutex<[String]>([])
        let fails = Mutex(false)
        var actions: [Action] { performed.withLock { $0 } }

        /// Holds every request until `release()`: one in flight at a time, as on a slow receiver.
        func perform(_ action: Action) async throws {
            performed.withLock { $0.append(action) }
            await withCheckedContinuation { continuation in held.withLock { $0.append(continuation) } }
            if fails.withLock({ $0 }) { throw Refused() }
        }

        func release() { held.withLock { $0.removeFirst() }.resume() }
        var inFlight: Int { held.withLock { $0.count } }
    }

    private func makeScheduler(_ receiver: Receiver, clock: ManualTimeSource) -> ActionScheduler {
        ActionScheduler(timeSource: clock, unanswered: { action, error in
            receiver.unanswered.withLock { $0.append("\(action.name): \(error)") }
        }, perform: { try await receiver.perform($0) })
    }

    func testStepsTakenInWhileARequestIsInFlightBecomeOneAndAllAreAnswered() async {
        let clock = ManualTimeSource()
        let receiver = Receiver()
        let scheduler = makeScheduler(receiver, clock: clock)
        let first = await scheduler.schedule(.volumeUp(0.05))
        let sent = await eventually { receiver.inFlight == 1 }
        XCTAssertTrue(sent)
        var later: [ActionOutcome] = []
        for _ in 0..<19 { later.append(await scheduler.schedule(.volumeUp(0.05))) }
        await scheduler.submit(.volumeDown(0.05), isRepeat: true)  // a remote key joins the same request
        receiver.release()
        let firstResult = await first.value()
        XCTAssertNoThrow(try firstResult.get())
        let rateLimited = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(rateLimited, "the next request waits out the minimum interval")
        await clock.advance(by: .milliseconds(100))
        let second = await eventually { receiver.inFlight == 1 }
        XCTAssertTrue(second)
        receiver.release()
        for outcome in later {
            let result = await outcome.value()
            XCTAssertNoThrow(try result.get())
        }
        XCTAssertEqual(receiver.actions.count, 2, "\(receiver.actions)")
        XCTAssertEqual(receiver.actions.first, .volumeUp(0.05))
        guard case .volumeUp(let total) = receiver.actions.last else { return XCTFail("\(receiver.actions)") }
        XCTAssertEqual(total, 0.9, accuracy: 1e-9, "18 net steps in one request")
        await scheduler.stop()
    }

    func testAFailureGoesToTheFrontEndsWaitingAndIsNotAlsoLogged() async {
        let clock = ManualTimeSource()
        let receiver = Receiver()
        receiver.fails.withLock { $0 = true }
        let scheduler = makeScheduler(receiver, clock: clock)
        let outcome = await scheduler.schedule(.seekBy(30))
        let sent = await eventually { receiver.inFlight == 1 }
        XCTAssertTrue(sent)
        receiver.release()
        let result = await outcome.value()
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual("\($0)", "the receiver refused SET_VOLUME") }
        XCTAssertEqual(receiver.unanswered.withLock { $0 }, [], "one failure, one message: the front end's")

        // A remote key's failure has no one to answer: it goes to `unanswered`, once.
        await clock.advance(by: .seconds(1))
        await scheduler.submit(.seekBy(10), isRepeat: false)
        let keySent = await eventually { receiver.inFlight == 1 }
        XCTAssertTrue(keySent)
        receiver.release()
        let logged = await eventually { receiver.unanswered.withLock { $0 } == ["seek+10: the receiver refused SET_VOLUME"] }
        XCTAssertTrue(logged, "\(receiver.unanswered.withLock { $0 })")
        await scheduler.stop()
    }

    func testSettleReturnsOnlyOnceTheStepsTakenInHaveBeenSent() async {
        let clock = ManualTimeSource()
        let receiver = Receiver()
        let scheduler = makeScheduler(receiver, clock: clock)
        _ = await scheduler.schedule(.volumeUp(0.1))
        let sent = await eventually { receiver.inFlight == 1 }
        XCTAssertTrue(sent)
        _ = await scheduler.schedule(.volumeUp(0.1))  // waits behind the one in flight
        let settled = Mutex(false)
        let settling = Task {
            await scheduler.settle()
            settled.withLock { $0 = true }
        }
        receiver.release()
        let rateLimited = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(rateLimited)
        XCTAssertFalse(settled.withLock { $0 }, "settle() returned before the pending step was sent")
        await clock.advance(by: .milliseconds(100))
        let second = await eventually { receiver.inFlight == 1 }
        XCTAssertTrue(second)
        XCTAssertFalse(settled.withLock { $0 }, "settle() returned before the pending step was sent")
        receiver.release()
        await settling.value
        XCTAssertEqual(receiver.actions, [.volumeUp(0.1), .volumeUp(0.1)])
        await scheduler.settle()  // idle: returns at once
        await scheduler.stop()
    }

    func testStepsThatCancelOutAreAnsweredWithoutARequestAndStopAnswersTheRest() async {
        let clock = ManualTimeSource()
        let receiver = Receiver()
        let scheduler = makeScheduler(receiver, clock: clock)
        let up = await scheduler.schedule(.volumeUp(0.1))
        let sent = await eventually { receiver.inFlight == 1 }
        XCTAssertTrue(sent)
        // Taken in while the first is in flight: they add up to nothing.
        let plus = await scheduler.schedule(.volumeUp(0.1))
        let minus = await scheduler.schedule(.volumeDown(0.1))
        receiver.release()
        _ = await up.value()
        let rateLimited = await eventually { clock.sleeperCount == 1 }
        XCTAssertTrue(rateLimited)
        await clock.advance(by: .milliseconds(100))
        for outcome in [plus, minus] {
            let result = await outcome.value()
            XCTAssertNoThrow(try result.get())
        }
        XCTAssertEqual(receiver.actions, [.volumeUp(0.1)], "+10% then -10% need no SET_VOLUME")

        // A step waiting behind the request in flight when the gateway stops is answered "not run".
        let inFlight = await scheduler.schedule(.volumeUp(0.2))
        let again = await eventually { receiver.inFlight == 1 }
        XCTAssertTrue(again)
        let held = await scheduler.schedule(.volumeUp(0.1))
        let stopping = Task { await scheduler.stop() }
        let result = await held.value()
        XCTAssertThrowsError(try result.get()) { XCTAssertEqual("\($0)", "not run: the gateway is stopping") }
        receiver.release()
        await stopping.value
        let answered = await inFlight.value()
        XCTAssertNoThrow(try answered.get(), "the request in flight is still answered")
        let afterStop = await scheduler.schedule(.volumeUp(0.1)).value()
        XCTAssertThrowsError(try afterStop.get())
        XCTAssertEqual(receiver.actions, [.volumeUp(0.1), .volumeUp(0.2)])
    }
}
