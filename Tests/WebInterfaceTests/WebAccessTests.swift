import TestSupport
import WebInterface
import XCTest

/// The sessions and the lockout, pure, on the manual clock.
final class WebAccessTests: XCTestCase {
    func testFiveWrongPasswordsLockTheLoginForAMinute() async {
        let clock = ManualTimeSource()
        var throttle = LoginThrottle()
        for _ in 0..<5 {
            XCTAssertNil(throttle.refusal(at: clock.now))
            throttle.failed(at: clock.now)
            await clock.advance(by: .seconds(1))
        }
        // The 6th attempt within the minute is refused before its password is checked.
        let wait = throttle.refusal(at: clock.now)
        XCTAssertEqual(wait, .seconds(55))
        await clock.advance(by: .seconds(54))
        XCTAssertNotNil(throttle.refusal(at: clock.now))
        await clock.advance(by: .seconds(1))
        XCTAssertNil(throttle.refusal(at: clock.now), "the first failure is a minute old: one more attempt")
        throttle.succeeded()
        XCTAssertEqual(throttle.recentFailures, 0)
    }

    func testSessionsIdleOut() async {
        let clock = ManualTimeSource()
        var sessions = WebSessions(idleTimeout: .seconds(600))
        let session = sessions.create(token: "t1", csrf: "c1", at: clock.now)
        await clock.advance(by: .seconds(599), step: .seconds(60))
        XCTAssertEqual(sessions.use("t1", at: clock.now)?.csrf, "c1")
        await clock.advance(by: .seconds(599), step: .seconds(60))
        XCTAssertNotNil(sessions.use("t1", at: clock.now), "each use restarts the idle time")
        await clock.advance(by: .seconds(600), step: .seconds(60))
        XCTAssertNil(sessions.use("t1", at: clock.now))
        XCTAssertEqual(sessions.count, 0)
        XCTAssertTrue(WebSessions.csrfMatches("c1", session))
        XCTAssertFalse(WebSessions.csrfMatches("c2", session))
        XCTAssertFalse(WebSessions.csrfMatches(nil, session))
        XCTAssertFalse(WebSessions.csrfMatches("", session))
    }

    func testUnknownTokensFindNothingAndTheOldestSessionMakesRoom() {
        var sessions = WebSessions(idleTimeout: .seconds(600))
        for index in 0..<WebSessions.maximumSessions {
            _ = sessions.create(token: "t\(index)", csrf: "c\(index)", at: .seconds(index))
        }
        XCTAssertNil(sessions.use("t", at: .seconds(20)))
        XCTAssertNil(sessions.use(nil, at: .seconds(20)))
        XCTAssertNil(sessions.use("", at: .seconds(20)))
        _ = sessions.create(token: "new", csrf: "c", at: .seconds(21))
        XCTAssertEqual(sessions.count, WebSessions.maximumSessions)
        XCTAssertNil(sessions.use("t0", at: .seconds(22)))
        XCTAssertNotNil(sessions.use("t1", at: .seconds(22)))
        sessions.end("t1")
        XCTAssertNil(sessions.use("t1", at: .seconds(23)))
    }
}
