@testable import CastClient
import CastProtocol
import ReceiverSimulator
import Synchronization
import SystemSupport
import TestSupport
import XCTest

final class CastClientResilienceTests: XCTestCase {
    func testHeartbeatLossIsDetectedAfter15SecondsAndRecovered() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        let losses = Mutex<[String]>([])
        let states = harness.client.states()
        let recorder = Task {
            for await state in states {
                if case .waitingToReconnect = state.phase { losses.withLock { $0.append(state.lastError?.message ?? "?") } }
            }
        }
        var faults = SimulatorFaults()
        faults.ignorePings = true
        await harness.simulator.setFaults(faults)
        await harness.clock.advance(by: .seconds(14))
        XCTAssertEqual(losses.withLock { $0 }, [], "still within the 15 s grace")
        XCTAssertGreaterThanOrEqual(harness.sentTypes(on: CastNamespace.heartbeat).filter { $0 == "PING" }.count, 2,
                                    "the client pings every 5 s")
        await harness.clock.advance(by: .seconds(2))
        let lost = await eventually { !losses.withLock { $0 }.isEmpty }
        XCTAssertTrue(lost, "heartbeat loss not detected")
        XCTAssertTrue(losses.withLock { $0 }.first?.contains("heartbeat") ?? false, "\(losses.withLock { $0 })")
        let reconnected = await eventually { harness.shared.connections.withLock { $0.count } == 2 }
        XCTAssertTrue(reconnected, "no reconnect after the loss")

        await harness.simulator.setFaults(SimulatorFaults())
        await harness.clock.advance(by: .seconds(40))
        let snapshot = await harness.state()
        XCTAssertEqual(snapshot.phase, .connected)
        XCTAssertNil(snapshot.lastError)
        XCTAssertEqual(harness.shared.connections.withLock { $0.count }, 2, "a healthy link must stay up")
        recorder.cancel()
        await harness.client.stop()
    }

    func testReconnectJoinsTheRunningAppInsteadOfRelaunching() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo(title: "Keep Playing")
        let sessionBefore = await harness.state().application?.sessionID
        await harness.simulator.dropAllConnections()
        await harness.clock.advance(by: .seconds(1))
        let rejoined = await eventually {
            let state = await harness.state()
            return state.phase == .connected && state.media?.media?.metadata?.title == "Keep Playing"
        }
        let snapshot5 = await harness.state()
        XCTAssertTrue(rejoined, "not rejoined: \(snapshot5)")
        let snapshot6 = await harness.state()
        XCTAssertEqual(snapshot6.application?.sessionID, sessionBefore)
        XCTAssertEqual(harness.sentTypes(on: CastNamespace.receiver).filter { $0 == "LAUNCH" }.count, 1, "relaunched after reconnect")
        XCTAssertEqual(harness.shared.connections.withLock { $0.count }, 2)
        try await harness.client.pause()
        await harness.client.stop()
    }

    func testRejoiningShowsTheLastMediaUntilTheReceiverAnswersInsteadOfIdle() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo(title: "Keep Playing")
        // Every snapshot from the loss to the rejoin, in order.
        let seen = Mutex<[CastClientState]>([])
        let states = harness.client.states()
        let watcher = Task { for await state in states { seen.withLock { $0.append(state) } } }
        await harness.simulator.dropAllConnections()
        await harness.clock.advance(by: .seconds(1))
        let rejoined = await eventually {
            seen.withLock { $0.contains { $0.phase == .connected && $0.mediaKnown } }
        }
        XCTAssertTrue(rejoined)
        watcher.cancel()
        let flashes = seen.withLock { $0.filter { $0.phase == .connected && $0.application != nil && $0.media == nil } }
        XCTAssertEqual(flashes.count, 0, "a rejoin showed the app with no media (IDLE) before the receiver answered")
        await harness.client.stop()
    }

    func testAReplyOvertakenByANewerBroadcastDoesNotUndoIt() async throws {
        // A requester resumes after the message loop may have applied a newer
        // broadcast: the reply's arrival number shows it is older.
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.loadVideo(title: "Newest")
        let newest = await harness.client.newestMediaStatus
        XCTAssertGreaterThan(newest, 0)
        await harness.client.apply(mediaStatus: [], arrival: newest - 1)
        let kept = await harness.state().media?.media?.metadata?.title
        XCTAssertEqual(kept, "Newest", "an older (empty) status must not replace a newer one")
        await harness.client.apply(mediaStatus: [], arrival: newest + 1)
        let replaced = await harness.state().media
        XCTAssertNil(replaced, "a newer status applies")
        await harness.client.stop()
    }

    func testBackoffDoublesToThirtySecondsAndResetsOnSuccess() async throws {
        let harness = try ClientHarness()
        harness.shared.reachable.withLock { $0 = false }
        await harness.client.start()
        var delays: [Double] = []
        for _ in 0..<8 {
            let waiting = await eventually {
                if case .waitingToReconnect(let attempt, _) = await harness.state().phase { return attempt == delays.count + 1 }
                return false
            }
            XCTAssertTrue(waiting)
            guard case .waitingToReconnect(_, let retryIn) = await harness.state().phase else { break }
            delays.append(retryIn.seconds)
            await harness.clock.advance(by: retryIn, step: retryIn)
        }
        XCTAssertEqual(delays, [0.5, 1, 2, 4, 8, 16, 30, 30])
        let snapshot7 = await harness.state()
        XCTAssertEqual(snapshot7.lastError?.code, .deviceUnavailable)
        harness.shared.reachable.withLock { $0 = true }
        await harness.clock.advance(by: .seconds(31), step: .seconds(1))
        let connected = await eventually { await harness.state().phase == .connected }
        XCTAssertTrue(connected)
        await harness.simulator.dropAllConnections()
        let waiting = await eventually {
            if case .waitingToReconnect(let attempt, let retryIn) = await harness.state().phase {
                return attempt == 1 && retryIn == .milliseconds(500)
            }
            return false
        }
        let snapshot8 = await harness.state()
        XCTAssertTrue(waiting, "backoff was not reset after success: \(snapshot8.phase)")
        await harness.client.stop()
    }

    func testRequestsTimeOutWithAClearError() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        await harness.delayReplies(by: .seconds(60))
        let client = harness.client
        let attempt = Task { try await client.setVolume(level: 0.2) }
        await harness.clock.settle()
        await harness.clock.advance(by: .seconds(11))
        if let error = await expectCastError(.timeout, { try await attempt.value }) {
            XCTAssertTrue(error.message.contains("SET_VOLUME") && error.message.contains("10 s"), error.message)
        }
        await harness.client.stop()
    }

    func testDisconnectMidRequestFailsItAtOnce() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        await harness.delayReplies(by: .seconds(5))
        let client = harness.client
        let attempt = Task { try await client.setMuted(true) }
        await harness.clock.settle()
        await harness.simulator.dropAllConnections()
        _ = await expectCastError(.disconnected) { try await attempt.value }
        await harness.client.stop()
    }

    func testLaunchErrorCancelledIsRetriedOnceAndOtherReasonsSurface() async throws {
        var faults = SimulatorFaults()
        faults.launchErrorReason = "CANCELLED"
        faults.launchErrorCount = 1
        let harness = try ClientHarness(faults: faults)
        await harness.startConnected()
        let application = try await harness.client.launch()
        XCTAssertEqual(application.appID, CastAppID.defaultMediaReceiver)
        XCTAssertEqual(harness.sentTypes(on: CastNamespace.receiver).filter { $0 == "LAUNCH" }.count, 2)

        faults.launchErrorReason = "NOT_FOUND"
        faults.launchErrorCount = nil
        await harness.simulator.setFaults(faults)
        if let error = await expectCastError(.launchFailed, { try await harness.client.launch(LaunchSettings(appID: "ABCDEF12")) }) {
            XCTAssertEqual(error.reason, "NOT_FOUND")
            XCTAssertTrue(error.message.contains("app-id"), "the message should say what to check: \(error.message)")
        }
        let snapshot9 = await harness.state()
        XCTAssertEqual(snapshot9.lastError?.reason, "NOT_FOUND")
        await harness.client.stop()
    }

    func testLaunchSendsAndroidFlagAndCredentials() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        try await harness.client.launch(LaunchSettings(appID: "1234ABCD", allowsAndroidReceiver: true,
                                                       credentials: LaunchCredentials(credentials: "acct-token", credentialsType: "android")))
        let launch = harness.sentMessages().compactMap { try? $0.jsonPayload() }.first { $0["type"] == "LAUNCH" }
        XCTAssertEqual(launch?["supportedAppTypes"], ["WEB", "ANDROID_TV"])
        XCTAssertEqual(launch?["credentialsData"], ["credentials": "acct-token", "credentialsType": "android"])
        let snapshot10 = await harness.state()
        XCTAssertEqual(snapshot10.application?.appID, "1234ABCD")
        await harness.client.stop()
    }

    func testHostileBytesAreSurvived() async throws {
        let harness = try ClientHarness()
        await harness.startConnected()
        let receiverEnd = harness.shared.connections.withLock { $0[0].receiver }
        func frame(_ namespace: String, _ payload: CastMessage.Payload, from source: String = "receiver-0") -> [UInt8] {
            (try? CastMessage(sourceID: source, destinationID: "*", namespace: namespace, payload: payload).framed()) ?? []
        }
        receiverEnd.enqueue(frame(CastNamespace.receiver, .string("not json {")), completion: nil)
        receiverEnd.enqueue(frame(CastNamespace.receiver, .string("[1,2,3]")), completion: nil)
        receiverEnd.enqueue(frame(CastNamespace.receiver, .string(#"{"type":"RECEIVER_STATUS","requestId":999,"status":"odd"}"#)), completion: nil)
        receiverEnd.enqueue(frame(CastNamespace.media, .string(#"{"type":"MEDIA_STATUS","status":[{"bogus":true}]}"#)), completion: nil)
        receiverEnd.enqueue(frame("urn:x-cast:com.example.unknown", .string(#"{"type":"HELLO"}"#)), completion: nil)
        receiverEnd.enqueue(frame(CastNamespace.deviceAuth, .binary([1, 2, 3])), completion: nil)
        receiverEnd.enqueue([0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], completion: nil)  // undecodable body
        receiverEnd.enqueue(frame(CastNamespace.receiver, .string(#"{"type":"SOMETHING_NEW","requestId":0}"#)), completion: nil)
        try await harness.client.setVolume(level: 0.25)
        let snapshot11 = await harness.state()
        XCTAssertEqual(snapshot11.phase, .connected, "malformed messages must not drop the link")
        XCTAssertEqual(harness.shared.connections.withLock { $0.count }, 1)

        receiverEnd.enqueue([0x7F, 0xFF, 0xFF, 0xFF], completion: nil)  // 2 GB frame: framing is lost
        let dropped = await harness.waitUntilReconnecting()
        XCTAssertTrue(dropped)
        let snapshot12 = await harness.state()
        XCTAssertEqual(snapshot12.lastError?.code, .protocolError)
        await harness.clock.advance(by: .seconds(1))
        let back = await eventually { await harness.state().phase == .connected }
        XCTAssertTrue(back)
        await harness.client.stop()
    }

    func testCommandsWhileOfflineFailFastWithTheReason() async throws {
        let harness = try ClientHarness()
        harness.shared.reachable.withLock { $0 = false }
        await harness.client.start()
        _ = await harness.waitUntilReconnecting()
        if let error = await expectCastError(.notConnected, { try await harness.client.play() }) {
            XCTAssertTrue(error.message.contains("reconnecting in"), error.message)
            XCTAssertTrue(error.message.contains("unreachable"), error.message)
        }
        await harness.client.stop()
    }
}
