import Dispatch
import Foundation
import Synchronization
import SystemSupport
import XCTest

/// `StateBroadcaster` under a publisher racing subscribers that are cancelled.
final class StateBroadcasterTests: XCTestCase {
    /// Publishing hands values to waiting consumers while their tasks are
    /// cancelled (a client replaced while it publishes). The broadcaster once
    /// yielded under its subscriber lock, which the cancelled stream's
    /// termination handler takes while the task's status lock is held: the
    /// two threads deadlocked (the whole-path fuzzer found it).
    func testPublishingWhileSubscribersAreCancelledNeverDeadlocks() {
        let broadcaster = StateBroadcaster(0)
        let done = DispatchSemaphore(value: 0)
        let rounds = 2_000
        // Off the cooperative pool: if the bug comes back, the threads it
        // deadlocks are these, and the test fails at its deadline instead of hanging.
        Thread.detachNewThread {
            let publishing = Atomic(true)
            let publisher = Thread {
                var value = 0
                while publishing.load(ordering: .relaxed) {
                    value += 1
                    broadcaster.publish(value)
                }
            }
            publisher.start()
            for _ in 0..<rounds {
                let states = broadcaster.subscribeVersioned()
                let consumer = Task {
                    for await _ in states {}
                }
                consumer.cancel()
            }
            publishing.store(false, ordering: .relaxed)
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success,
                       "publishing and cancelling subscribers deadlocked")
    }

    func testEverySubscriberGetsTheCurrentValueThenEachNewOneInOrder() async {
        let broadcaster = StateBroadcaster("first")
        var iterator = broadcaster.subscribeVersioned().makeAsyncIterator()
        let initial = await iterator.next()
        XCTAssertEqual(initial?.value, "first")
        XCTAssertEqual(initial?.version, 0)
        broadcaster.publish("second")
        let next = await iterator.next()
        XCTAssertEqual(next?.value, "second")
        XCTAssertEqual(next?.version, 1)
        broadcaster.finish()
        let end = await iterator.next()
        XCTAssertNil(end?.value, "finish ends the subscription")
    }
}
