import CastClient
import CastProtocol
import DeviceAuth
import Foundation
import SystemSupport
import TLS
import TestSupport
import XCTest

extension DeviceAuthVerifier: DeviceAuthenticator {}

/// Device authentication over real TLS on loopback: a CastClient with the
/// real verifier against the `cast-receiver-sim` process answering with the
/// test PKI (Tests/pki, made by the openssl CLI).
final class DeviceAuthIntegrationTests: XCTestCase {
    /// Starts the simulator with `deviceAuth` (a directory of the test PKI)
    /// and connects a client with `policy`; returns both once connected.
    private func connect(deviceAuth: String?, fault: String? = nil, fixedTLS: Bool = true, tls: String = "tls",
                         policy: AuthenticationPolicy = .require,
                         file: StaticString = #filePath, line: UInt = #line) async throws -> (SimulatorProcess, CastClient) {
        var arguments: [String] = []
        if fixedTLS { arguments += ["--tls-cert", try TestPKI.path("\(tls).pem"), "--tls-key", try TestPKI.path("\(tls).key")] }
        if let deviceAuth { arguments += ["--device-auth", try TestPKI.path(deviceAuth)] }
        if let fault { arguments += ["--device-auth-fault", fault] }
        let simulator = try SimulatorProcess(directory: try temporaryDirectory(self), extraArguments: arguments)
        addTeardownBlock { simulator.stop() }

        let context = try TLSContext.client()
        let client = CastClient(configuration: .init(host: "127.0.0.1", port: UInt16(simulator.port))) { host, port in
            try await TLSConnection.connect(host: host, port: port, context: context)
        }
        let verifier = DeviceAuthVerifier(anchors: try TrustAnchors.load(directory: TestPKI.path("anchors")))
        await client.setDeviceAuthentication(policy: policy, authenticator: verifier)
        await client.start()
        let settled = await eventually(timeout: .seconds(15)) {
            let state = await client.currentState
            guard state.phase == .connected else { return false }
            if case .pending = state.authentication { return false }
            return true
        }
        XCTAssertTrue(settled, "the client did not connect: \(simulator.process.allOutput)", file: file, line: line)
        return (simulator, client)
    }

    private func failure(_ client: CastClient) async -> DeviceAuthError? {
        guard case .failed(let error) = await client.currentState.authentication else { return nil }
        return error
    }

    func testAGenuineChainIsAuthenticatedAndCommandsGoThrough() async throws {
        let (simulator, client) = try await connect(deviceAuth: "sim-valid")
        guard case .authenticated(let result) = await client.currentState.authentication else {
            return XCTFail("not authenticated: \(await client.currentState.authentication)")
        }
        XCTAssertEqual(result.deviceName, "test-device-0001")
        XCTAssertFalse(result.audioOnly)
        try await client.setVolume(level: 0.25)
        XCTAssertTrue(simulator.payloads(ofType: "SET_VOLUME").count == 1)
        await client.stop()
    }

    func testTheSimulatorsOwnGeneratedTLSCertificateIsBoundToo() async throws {
        let (_, client) = try await connect(deviceAuth: "sim-valid", fixedTLS: false)
        guard case .authenticated = await client.currentState.authentication else {
            return XCTFail("not authenticated: \(await client.currentState.authentication)")
        }
        await client.stop()
    }

    func testTheAudioOnlyPolicyIsRecorded() async throws {
        let (_, client) = try await connect(deviceAuth: "sim-audio")
        guard case .authenticated(let result) = await client.currentState.authentication else { return XCTFail() }
        XCTAssertTrue(result.audioOnly)
        await client.stop()
    }

    func testRequireRefusesCommandsToAnExpiredDevice() async throws {
        let (simulator, client) = try await connect(deviceAuth: "sim-expired")
        let error = await failure(client)
        XCTAssertEqual(error?.code, .certificateExpired)
        do {
            try await client.setVolume(level: 0.25)
            XCTFail("a command went to an unauthenticated receiver")
        } catch let error as CastError {
            XCTAssertEqual(error.code, .notAuthenticated)
            XCTAssertTrue(error.message.contains("127.0.0.1:\(simulator.port)"), error.message)
            XCTAssertTrue(error.message.contains("[cast] authentication = require"), error.message)
        }
        XCTAssertEqual(simulator.payloads(ofType: "SET_VOLUME").count, 0)
        let phase = await client.currentState.phase
        XCTAssertEqual(phase, .connected, "the connection stays up")
        await client.stop()
    }

    func testAnUnknownRootFailsButWarnCarriesOn() async throws {
        let (simulator, client) = try await connect(deviceAuth: "sim-unknown-root", policy: .warn)
        let error = await failure(client)
        XCTAssertEqual(error?.code, .chainUntrusted)
        try await client.setVolume(level: 0.25)
        XCTAssertEqual(simulator.payloads(ofType: "SET_VOLUME").count, 1)
        await client.stop()
    }

    func testFaultyAnswersFail() async throws {
        let expected: [(String, DeviceAuthError.Code)] = [
            ("wrong-signature", .signatureInvalid),
            ("other-certificate", .tlsCertificateMismatch),
            ("replay", .nonceMismatch),
        ]
        for (fault, code) in expected {
            let (simulator, client) = try await connect(deviceAuth: "sim-valid", fault: fault)
            let error = await failure(client)
            XCTAssertEqual(error?.code, code, "\(fault): \(error?.message ?? "accepted")")
            await client.stop()
            simulator.stop()
        }
    }

    func testATLSCertificateValidForMonthsIsNoReceiversOwn() async throws {
        let (_, client) = try await connect(deviceAuth: "sim-valid", tls: "tls-long")
        let error = await failure(client)
        XCTAssertEqual(error?.code, .tlsCertificateExpired)
        XCTAssertTrue(error?.message.contains("at most 4 days") ?? false, error?.message ?? "")
        await client.stop()
    }

    func testAReceiverWithoutCredentialsFails() async throws {
        let (_, client) = try await connect(deviceAuth: nil)
        let error = await failure(client)
        XCTAssertEqual(error?.code, .receiverError)
        XCTAssertTrue(error?.message.contains("INTERNAL_ERROR") ?? false)
        await client.stop()
    }
}
