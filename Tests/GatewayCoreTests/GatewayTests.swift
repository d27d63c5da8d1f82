import CastClient
import CastProtocol
import GatewayModel
@testable import Interpreter
import ReceiverSimulator
import SystemSupport
import TestSupport
import XCTest
@testable import GatewayCore

final class GatewayTests: XCTestCase {
    func makeGateway(presets: [Int: PresetSettings.Preset] = [:], cast: CastSettings = CastSettings()) async throws -> (Gateway, ReceiverSimulator) {
        let clock = SystemTimeSource()
        let simulator = try ReceiverSimulator(timeSource: clock)
        let settings = GatewaySettings(device: DeviceSettings(target: .address(host: "tv.test", port: 8009)), cast: cast,
                                       presets: PresetSettings(presets))
        let gateway = Gateway(settings: settings, connector: { _, _ in
            let (clientEnd, receiverEnd) = InMemoryByteStream.pair()
            await simulator.serve(receiverEnd)
            return clientEnd
        }, timeSource: clock)
        await gateway.start()
        try await gateway.waitUntilConnected(timeout: .seconds(5))
        return (gateway, simulator)
    }

    func testActionsFlowToTheReceiverAndStateIsPublished() async throws {
        let (gateway, simulator) = try await makeGateway(presets: [3: .init(url: "http://media.test/news.mp4", title: "News")])
        try await gateway.perform(.preset(3))
        var state = await gateway.state
        XCTAssertEqual(state.link, .connected)
        XCTAssertEqual(state.appID, CastAppID.defaultMediaReceiver)
        XCTAssertEqual(state.title, "News")
        XCTAssertEqual(state.player, .playing)
        try await gateway.perform(.toggle)
        try await gateway.perform(.setVolume(0.3))
        try await gateway.perform(.volumeUp(0.1))
        state = await gateway.state
        XCTAssertEqual(state.player, .paused)
        XCTAssertEqual(state.volume ?? 0, 0.4, accuracy: 0.0001)
        let summary = await simulator.statusSummary
        XCTAssertTrue(summary.contains("player=PAUSED") && summary.contains("volume=40%"), summary)
        await gateway.stop()
    }

    func testFailuresAreReportedAndStateKept() async throws {
        let (gateway, _) = try await makeGateway()
        do {
            try await gateway.perform(.preset(7))
            XCTFail("an unset preset must fail")
        } catch let error as GatewayError {
            XCTAssertEqual(error.code, .unknownPreset)
            XCTAssertTrue(error.message.contains("[presets]"))
        }
        var state = await gateway.state
        XCTAssertEqual(state.lastError?.code, "unknown-preset")
        XCTAssertEqual(state.link, .connected, "a failed action must not disturb the link")
        try await gateway.perform(.setVolume(0.2))
        state = await gateway.state
        XCTAssertNil(state.lastError, "the next success clears the error")
        await gateway.stop()
    }

    func testInterpreterAnswersAndNeverEchoesCredentials() async throws {
        let (gateway, _) = try await makeGateway()
        let interpreter = CommandInterpreter(gateway: gateway, version: "9.9")
        let credentialReply = await interpreter.run("creds top-secret-value")
        XCTAssertEqual(credentialReply, ["ok: launch credentials set (not shown)"])
        let everything = await [
            interpreter.run("version"), interpreter.run("cast http://media.test/a.mp4 Film"), interpreter.run("status"),
            interpreter.run("pause"), interpreter.run("next"), interpreter.run("bogus"), interpreter.run("subs 4"),
        ].flatMap { $0 }
        XCTAssertEqual(everything.first, "cast-gateway 9.9")
        XCTAssertTrue(everything.contains { $0.hasPrefix("* PLAYING \"Film\"") }, "\(everything)")
        XCTAssertTrue(everything.contains { $0.contains("does not support next") }, "\(everything)")
        XCTAssertTrue(everything.contains("error: unknown command 'bogus' (try 'help')"))
        XCTAssertTrue(everything.contains { $0.contains("no subtitle track 4") }, "\(everything)")
        XCTAssertFalse(everything.joined().contains("top-secret-value"))
        await gateway.stop()
    }

    func testNoDeviceGivesAClearError() async throws {
        let gateway = Gateway(settings: GatewaySettings(), connector: { _, _ in fatalError("must not connect") })
        await gateway.start()
        do {
            try await gateway.perform(.play)
            XCTFail("expected noDevice")
        } catch let error as GatewayError {
            XCTAssertEqual(error.code, .noDevice)
            XCTAssertTrue(error.message.contains("[device] host"))
        }
        let state = await gateway.state
        XCTAssertEqual(state.link, .noDevice)
    }
}

final class InputProblemTests: XCTestCase {
    func testInputProblemsReachTheStateAndStatus() async {
        let gateway = Gateway(settings: GatewaySettings(), connector: { _, _ in fatalError("unused") })
        await gateway.setInputProblem("cannot connect to lircd at /run/lirc/lircd", for: "lirc")
        var state = await gateway.state
        XCTAssertEqual(state.inputProblems["lirc"], "cannot connect to lircd at /run/lirc/lircd")
        let status = await CommandInterpreter(gateway: gateway, version: "1").run("status")
        XCTAssertTrue(status.contains("  lirc: cannot connect to lircd at /run/lirc/lircd"), "\(status)")
        await gateway.setInputProblem(nil, for: "lirc")
        state = await gateway.state
        XCTAssertTrue(state.inputProblems.isEmpty)
    }
}
