import CastClient
import CastProtocol
import ReceiverSimulator
import Synchronization
import SystemSupport
import TestSupport
import XCTest

/// A signer without cryptography: the "signature" is the nonce followed by
/// the TLS certificate bytes, so the fake authenticator can check both.
private struct EchoSigner: DeviceAuthSigning {
    func response(nonce: [UInt8], hashAlgorithm: AuthHashAlgorithm, tlsCertificate: [UInt8]) throws -> AuthResponse {
        AuthResponse(signature: nonce + tlsCertificate, clientAuthCertificate: [0x30, 0x00], senderNonce: nonce,
                     hashAlgorithm: hashAlgorithm)
    }
}

/// The seam's fake: fresh nonces, a verdict that checks the nonce and the
/// signed bytes like the real verifier would, or a forced failure.
private final class FakeAuthenticator: DeviceAuthenticator {
    let forcedFailure: DeviceAuthError?
    let audioOnly: Bool
    let challenges = Mutex<[AuthChallenge]>([])

    init(failing: DeviceAuthError? = nil, audioOnly: Bool = false) {
        forcedFailure = failing
        self.audioOnly = audioOnly
    }

    func makeChallenge() throws(DeviceAuthError) -> AuthChallenge {
        let challenge = AuthChallenge.sha256(nonce: (0..<16).map { _ in UInt8.random(in: 0...255) })
        challenges.withLock { $0.append(challenge) }
        return challenge
    }

    func verify(reply: [UInt8], to challenge: AuthChallenge, peerCertificate: [UInt8]?) -> Result<DeviceAuthResult, DeviceAuthError> {
        if let forcedFailure { return .failure(forcedFailure) }
        guard let message = try? DeviceAuthMessage(serialized: reply) else {
            return .failure(DeviceAuthError(.malformedResponse, "not a DeviceAuthMessage"))
        }
        if let error = message.error { return .failure(DeviceAuthError(.receiverError, error.errorType.name)) }
        guard let response = message.response, response.senderNonce == challenge.senderNonce,
              response.signature == (challenge.senderNonce ?? []) + (peerCertificate ?? FakeAuthenticator.simulatorCertificate) else {
            return .failure(DeviceAuthError(.signatureInvalid, "wrong signature"))
        }
        return .success(DeviceAuthResult(audioOnly: audioOnly, deviceName: "fake-device", revocation: .notProvided, usedSHA1: false))
    }

    /// In-memory streams have no certificate; the simulator signs this one.
    static let simulatorCertificate: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x07]
}

final class DeviceAuthPolicyTests: XCTestCase {
    private let credentials = SimulatorDeviceAuth(signer: EchoSigner(), tlsCertificate: FakeAuthenticator.simulatorCertificate)
    private let failure = DeviceAuthError(.chainUntrusted, "the device certificate does not chain to a trust anchor")

    private func harness(policy: AuthenticationPolicy, authenticator: FakeAuthenticator,
                         deviceAuth: SimulatorDeviceAuth? = nil) async throws -> ClientHarness {
        let harness = try ClientHarness(deviceAuth: deviceAuth ?? credentials)
        await harness.client.setDeviceAuthentication(policy: policy, authenticator: authenticator)
        return harness
    }

    func testTheChallengeGoesFirstAsBinaryFromThePlatformSender() async throws {
        let authenticator = FakeAuthenticator()
        let harness = try await harness(policy: .warn, authenticator: authenticator)
        await harness.startConnected()
        let sent = harness.sentMessages()
        let first = try XCTUnwrap(sent.first)
        XCTAssertEqual(first.namespace, CastNamespace.deviceAuth, "the challenge precedes CONNECT")
        XCTAssertEqual(first.sourceID, CastEndpoint.platformSender)
        XCTAssertEqual(first.destinationID, CastEndpoint.platformReceiver)
        guard case .binary(let payload) = first.payload else { return XCTFail("the challenge is not BINARY") }
        let challenge = try XCTUnwrap(DeviceAuthMessage(serialized: payload).challenge)
        XCTAssertEqual(challenge, authenticator.challenges.withLock { $0.first })
        XCTAssertEqual(challenge.hashAlgorithm, .sha256)
        guard case .authenticated(let result) = await harness.state().authentication else {
            return XCTFail("not authenticated: \(await harness.state().authentication)")
        }
        XCTAssertEqual(result.deviceName, "fake-device")
        await harness.client.stop()
    }

    func testWarnRecordsTheFailureAndCarriesOn() async throws {
        let harness = try await harness(policy: .warn, authenticator: FakeAuthenticator(failing: failure))
        await harness.startConnected()
        let authentication = await harness.state().authentication
        XCTAssertEqual(authentication, .failed(failure))
        try await harness.client.setVolume(level: 0.3)
        let level = await harness.state().receiver?.volume.level
        XCTAssertEqual(level ?? 0, 0.3, accuracy: 0.001)
        await harness.client.stop()
    }

    func testRequireRefusesCommandsButKeepsTheConnection() async throws {
        let harness = try await harness(policy: .require, authenticator: FakeAuthenticator(failing: failure))
        await harness.startConnected()
        let error = await expectCastError(.notAuthenticated) { try await harness.client.setVolume(level: 0.3) }
        XCTAssertTrue(error?.message.contains("tv.local:8009") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("does not chain to a trust anchor") ?? false, error?.message ?? "")
        XCTAssertTrue(error?.message.contains("[cast] authentication = require") ?? false, error?.message ?? "")
        _ = await expectCastError(.notAuthenticated) { try await harness.client.launch() }
        XCTAssertFalse(harness.sentTypes(on: CastNamespace.receiver).contains("SET_VOLUME"), "nothing was sent")
        XCTAssertFalse(harness.sentTypes(on: CastNamespace.receiver).contains("LAUNCH"), "nothing was sent")

        // The link stays up: heartbeats go on and the status is still read.
        await harness.clock.advance(by: .seconds(30))
        let state = await harness.state()
        XCTAssertEqual(state.phase, .connected)
        XCTAssertNotNil(state.receiver)
        XCTAssertTrue(harness.sentTypes(on: CastNamespace.heartbeat).contains("PING"))
        await harness.client.stop()
    }

    func testRequireLetsAnAuthenticatedReceiverBeCommandedAndRecordsAudioOnly() async throws {
        let harness = try await harness(policy: .require, authenticator: FakeAuthenticator(audioOnly: true))
        await harness.startConnected()
        try await harness.client.setVolume(level: 0.7)
        let state = await harness.state()
        XCTAssertEqual(state.receiver?.volume.level ?? 0, 0.7, accuracy: 0.001)
        guard case .authenticated(let result) = state.authentication else { return XCTFail("\(state.authentication)") }
        XCTAssertTrue(result.audioOnly)
        XCTAssertEqual(state.authentication.summary, "ok (audio only)")
        await harness.client.stop()
    }

    func testAReceiverWithoutCredentialsFailsWithItsError() async throws {
        let harness = try ClientHarness()  // the simulator answers AuthError INTERNAL_ERROR
        await harness.client.setDeviceAuthentication(policy: .require, authenticator: FakeAuthenticator())
        await harness.startConnected()
        guard case .failed(let error) = await harness.state().authentication else { return XCTFail() }
        XCTAssertEqual(error.code, .receiverError)
        XCTAssertEqual(error.message, "INTERNAL_ERROR")
        await harness.client.stop()
    }

    func testAWrongAnswerFromTheSimulatorFails() async throws {
        for fault in DeviceAuthFault.allCases {
            var faults = SimulatorFaults()
            faults.deviceAuthFault = fault
            let harness = try ClientHarness(faults: faults, deviceAuth: credentials)
            await harness.client.setDeviceAuthentication(policy: .warn, authenticator: FakeAuthenticator())
            await harness.startConnected()
            guard case .failed(let error) = await harness.state().authentication else {
                XCTFail("\(fault) was accepted")
                continue
            }
            XCTAssertEqual(error.code, .signatureInvalid, "\(fault)")
            await harness.client.stop()
        }
    }

    func testOffSendsNoChallenge() async throws {
        let authenticator = FakeAuthenticator()
        let harness = try await harness(policy: .off, authenticator: authenticator)
        await harness.startConnected()
        let authentication = await harness.state().authentication
        XCTAssertEqual(authentication, .off)
        XCTAssertFalse(harness.sentMessages().contains { $0.namespace == CastNamespace.deviceAuth })
        XCTAssertEqual(authenticator.challenges.withLock { $0.count }, 0)
        await harness.client.stop()
    }

    func testEveryConnectionIsChallengedWithAFreshNonce() async throws {
        let authenticator = FakeAuthenticator()
        let harness = try await harness(policy: .require, authenticator: authenticator)
        await harness.startConnected()
        await harness.simulator.dropAllConnections()
        let waiting = await harness.waitUntilReconnecting()
        XCTAssertTrue(waiting)
        await harness.clock.advance(by: .seconds(5))
        let reconnected = await eventually {
            await harness.state().phase == .connected && authenticator.challenges.withLock { $0.count } == 2
        }
        XCTAssertTrue(reconnected)
        let nonces = authenticator.challenges.withLock { $0.map(\.senderNonce) }
        XCTAssertNotEqual(nonces.first, nonces.last)
        try await harness.client.setVolume(level: 0.2)
        await harness.client.stop()
    }
}
