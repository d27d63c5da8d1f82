import JSON
import GatewayCore
import GatewayModel
import SystemSupport
import TestSupport
import XCTest
@testable import Kiosk

/// The machine alone, at start: a guest on screen in any app is never loaded
/// over; the kiosk's own items are known by their URLs, saved state or not.
final class KioskMachineStartupTests: XCTestCase {
    private let lobby = "http://media.test/lobby.mp4", two = "http://media.test/two.mp4"
    private let guestFilm = "http://phone.test/guest-film.mp4"
    private let dmr = MachineDriver.castApp

    private func driver(_ adjust: (inout KioskSettings) -> Void = { _ in }) -> MachineDriver {
        MachineDriver(items: [.url(lobby, title: "Lobby"), .url(two)], adjust)
    }

    func testAnIdleScreenAtStartIsLoadedOnceTheLinkIsUp() {
        let kiosk = driver()
        kiosk.start()
        XCTAssertEqual(kiosk.mode, .loading(attempt: 1, notBefore: nil))
        XCTAssertEqual(kiosk.logs("playlist /etc/cast-gateway/lobby.m3u: 2 items").count, 1)
        kiosk.show(kiosk.screen(link: .connecting))
        XCTAssertTrue(kiosk.loads.isEmpty, "nothing is loaded before the link is up")
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.map(\.source), [lobby])
        XCTAssertEqual(kiosk.loads.first?.startTime, 0)
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.count, 1, "one LOAD at a time: none while one is in flight")
        kiosk.loadSucceeds()
        guard case .playing(let playing) = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertEqual(playing.itemIndex, 0)
        XCTAssertTrue(playing.confirmed)
        XCTAssertEqual(kiosk.saves, [KioskSavedState(itemIndex: 0, source: lobby, position: 0)])
        XCTAssertEqual(kiosk.logs("playing 1/2: Lobby"), ["playing 1/2: Lobby"])
    }

    // MARK: A guest found at start

    /// The ways a start may see a guest's screen: all at once, the receiver's
    /// status first and the media later (within or after the first look), a late link.
    private enum Arrival: CaseIterable {
        case allAtOnce, inTurn, mediaAfterTheLook, lateLink, linkLostBeforeTheMedia
    }

    /// A start (restarted three times, as a watchdog would) finds `full` on screen, arriving as `arrival`.
    private func assertRespected(_ full: GatewayState, arrival: Arrival, file: StaticString = #filePath, line: UInt = #line) async {
        for restart in 1...3 {
            let kiosk = driver()
            var receiverOnly = full
            (receiverOnly.mediaKnown, receiverOnly.player, receiverOnly.contentID, receiverOnly.mediaSessionID) = (false, .idle, nil, nil)
            (receiverOnly.position, receiverOnly.duration) = (nil, nil)
            var readButEmpty = receiverOnly
            readButEmpty.mediaKnown = true
            kiosk.start(saved: KioskSavedState(itemIndex: 1, source: two, position: 30))
            switch arrival {
            case .allAtOnce:
                kiosk.show(full)
            case .inTurn:
                for snapshot in [receiverOnly, readButEmpty, full] { kiosk.show(snapshot) }
            case .mediaAfterTheLook:
                kiosk.show(receiverOnly)
                await kiosk.advance(seconds: 6)
                kiosk.show(readButEmpty)
                kiosk.show(full)
            case .lateLink:
                kiosk.show(kiosk.screen(link: .connecting))
                await kiosk.advance(seconds: 8)
                kiosk.show(receiverOnly)
                await kiosk.advance(seconds: 3)
                kiosk.show(full)
            case .linkLostBeforeTheMedia:
                kiosk.show(receiverOnly)
                await kiosk.advance(seconds: 3)
                kiosk.show(kiosk.screen(link: .reconnecting(retryInSeconds: 1)))
                await kiosk.advance(seconds: 4)
                kiosk.show(receiverOnly)
                await kiosk.advance(seconds: 3)
                XCTAssertEqual(kiosk.machine.state.startupPending, full.appID == dmr, "a new connection, a new first look", file: file, line: line)
                kiosk.show(full)
            }
            await kiosk.advance(seconds: 120)
            kiosk.show(full)
            let what = "\(full.appID ?? "-") \(full.contentID ?? "-") \(full.player), \(arrival), start \(restart)"
            XCTAssertEqual(kiosk.loads.map(\.source), [], "no LOAD over the guest (\(what))", file: file, line: line)
            guard case .guest = kiosk.mode else { return XCTFail("\(kiosk.mode) (\(what))", file: file, line: line) }
            XCTAssertTrue(kiosk.status.contains { $0.hasPrefix("now: a guest has the screen") }, "\(kiosk.status) (\(what))", file: file, line: line)

            // The guest stops casting: the loop returns, at the saved item and position.
            kiosk.showIdleScreen()
            XCTAssertEqual(kiosk.loads.map(\.source), [two], what, file: file, line: line)
            XCTAssertEqual(kiosk.loads.first?.startTime, 30, what, file: file, line: line)
        }
    }

    func testAGuestsFilmInTheDefaultMediaReceiverIsNeverLoadedOverAtStartWhateverTheOrderOfItsStatuses() async {
        for player in [GatewayState.Player.playing, .paused, .buffering] {
            for arrival in Arrival.allCases {
                let kiosk = driver()
                let film = kiosk.screen(app: dmr, media: guestFilm, session: 7, player: player, position: 100, duration: 3600)
                await assertRespected(film, arrival: arrival)
            }
        }
    }

    func testAGuestsOwnAppIsNeverLoadedOverAtStart() async {
        for arrival in Arrival.allCases {
            let kiosk = driver()
            await assertRespected(kiosk.screen(app: "ABCDEF12", player: .none, mediaKnown: false), arrival: arrival)
            await assertRespected(kiosk.screen(app: "ABCDEF12", media: guestFilm, session: 3, player: .playing, position: 5), arrival: arrival)
        }
    }

    func testSomethingPlayingInTheKiosksAppThatDoesNotSayWhatIsNotLoadedOver() async {
        let kiosk = driver()
        await assertRespected(kiosk.screen(app: dmr, session: 4, player: .playing, position: 5), arrival: .allAtOnce)
        await assertRespected(kiosk.screen(app: dmr, session: 4, player: .playing, position: 5), arrival: .inTurn)
    }

    func testAnAppWhoseMediaCannotBeReadWithinTheFirstLookIsLeftAloneUntilItIsRead() async {
        let kiosk = driver()
        kiosk.start()
        kiosk.show(kiosk.screen(app: dmr, mediaKnown: false))
        await kiosk.advance(seconds: 4)
        XCTAssertEqual(kiosk.mode, .loading(attempt: 1, notBefore: nil), "still looking")
        await kiosk.advance(seconds: 1)
        guard case .guest(let guest) = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertTrue(guest.unverified)
        XCTAssertEqual(kiosk.logs("could not be read within 5 s of connecting").count, 1)
        XCTAssertTrue(kiosk.loads.isEmpty)
        // Read at last: a guest's film, so the guest keeps the screen.
        kiosk.show(kiosk.screen(app: dmr, media: guestFilm, session: 2, player: .playing, position: 10))
        guard case .guest(let verified) = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertFalse(verified.unverified)
        XCTAssertTrue(kiosk.loads.isEmpty)
    }

    func testTheWelcomeAppWithoutAMediaChannelIsTheKiosksOwn() async {
        let kiosk = driver { $0.appID = "0F0F0F0F" }
        kiosk.start()
        kiosk.show(kiosk.screen(app: "0F0F0F0F", mediaKnown: false))
        await kiosk.advance(seconds: 5)
        XCTAssertEqual(kiosk.loads.map(\.source), [lobby], "loaded over its own welcome app once the look is over")
    }

    // MARK: Its own items

    /// The reliability issue: with the state file unwritable, a restart found the kiosk's own item 2 on screen and took it for a guest's.
    func testItsOwnSecondItemWithoutASavedStateIsResumedNotTakenForAGuest() {
        let kiosk = driver()
        kiosk.start(saved: nil)
        kiosk.show(kiosk.screen(app: dmr, media: two, session: 9, player: .playing, position: 40, duration: 300))
        XCTAssertEqual(kiosk.loads.map(\.source), [two])
        XCTAssertEqual(kiosk.loads.first?.startTime, 40, "where the receiver had got to")
        XCTAssertEqual(kiosk.logs("a guest"), [])
        XCTAssertEqual(kiosk.logs("the receiver plays the kiosk's item 2/2"), ["the receiver plays the kiosk's item 2/2 (\(two)): resuming it at 40 s"])
        kiosk.loadSucceeds()
        XCTAssertTrue(kiosk.status.contains { $0.hasPrefix("now: playing item 2/2") }, "\(kiosk.status)")
    }

    func testItsOwnItemPausedOrIdleAtStartIsLoadedFromTheSavedState() {
        for player in [GatewayState.Player.idle, .none] {
            let kiosk = driver()
            kiosk.start(saved: KioskSavedState(itemIndex: 0, source: lobby, position: 12))
            kiosk.show(kiosk.screen(app: dmr, media: two, session: 9, player: player, position: 40, duration: 300))
            XCTAssertEqual(kiosk.loads.map(\.source), [lobby], "\(player)")
            XCTAssertEqual(kiosk.loads.first?.startTime, 12, "\(player)")
        }
    }

    /// A local file is known by its media server path, whatever the box's address, port or per-boot token.
    func testItsOwnLocalFileIsRecognisedByItsPathAcrossAddressPortAndTokenChanges() {
        let kiosk = MachineDriver(items: [.local("/srv/media/intro.mp4"), .local("/srv/media/lobby.mp4")])
        kiosk.start()
        let before = "http://10.0.0.5:8090/1f18f880acfb458e80b3b4acda3445e8/0/lobby.mp4"
        kiosk.show(kiosk.screen(app: dmr, media: before, session: 3, player: .playing, position: 75, duration: 200))
        guard case .recognising(let id, before, _, _)? = kiosk.machine.state.operation else {
            return XCTFail("the media server is asked: \(String(describing: kiosk.machine.state.operation))")
        }
        XCTAssertTrue(kiosk.effects.contains(.locate(id: id, paths: [0: "/srv/media/intro.mp4", 1: "/srv/media/lobby.mp4"])), "\(kiosk.effects)")
        XCTAssertTrue(kiosk.loads.isEmpty, "no LOAD before it knows")
        kiosk.showIdleScreen()
        XCTAssertTrue(kiosk.loads.isEmpty, "nor while it asks")
        kiosk.send(.located(id: id, urls: [0: "http://10.0.0.9:41000/0123456789abcdef0123456789abcdef/0/intro.mp4",
                                           1: "http://10.0.0.9:41000/0123456789abcdef0123456789abcdef/0/lobby.mp4"]))
        XCTAssertEqual(kiosk.loads.map(\.source), ["/srv/media/lobby.mp4"])
        XCTAssertEqual(kiosk.loads.first?.startTime, 75)
        XCTAssertEqual(kiosk.logs("a guest"), [])
    }

    func testAnotherFileFromTheSameKindOfServerIsAGuestsAndAStaleAnswerIsIgnored() {
        let kiosk = MachineDriver(items: [.local("/srv/media/lobby.mp4")])
        kiosk.start()
        let other = "http://10.0.0.5:8090/0/holiday.mp4"
        kiosk.show(kiosk.screen(app: dmr, media: other, session: 3, player: .playing, position: 75))
        guard let id = kiosk.operationID else { return XCTFail("asks the media server") }
        XCTAssertTrue(kiosk.send(.located(id: id + 1, urls: [0: other])).isEmpty, "not the answer it waits for")
        kiosk.send(.located(id: id, urls: [0: "http://10.0.0.9:8090/0/lobby.mp4"]))
        guard case .guest = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertTrue(kiosk.loads.isEmpty)
        // A local file the media server cannot serve any more is not the kiosk's either.
        let again = MachineDriver(items: [.local("/srv/media/lobby.mp4")])
        again.start()
        again.show(again.screen(app: dmr, media: "http://10.0.0.5:8090/0/lobby.mp4", session: 3, player: .playing, position: 5))
        again.send(.located(id: again.operationID ?? -1, urls: [:]))
        guard case .guest = again.mode else { return XCTFail("\(again.mode)") }
    }

    func testAnUnverifiedGuestTurnsOutToBeTheKiosksOwnItemAndTheScreenIsTakenBackAtOnce() async {
        let kiosk = driver()
        kiosk.start()
        kiosk.show(kiosk.screen(app: dmr, mediaKnown: false))
        await kiosk.advance(seconds: 6)
        guard case .guest(let guest) = kiosk.mode, guest.unverified else { return XCTFail("\(kiosk.mode)") }
        kiosk.show(kiosk.screen(app: dmr, media: two, session: 5, player: .playing, position: 20, duration: 300))
        XCTAssertEqual(kiosk.loads.map(\.source), [two])
        XCTAssertEqual(kiosk.loads.first?.startTime, 20)
        XCTAssertEqual(kiosk.logs("the receiver plays the kiosk's own item 2/2: back to the loop").count, 1)
    }

    func testACommandDuringTheRecognitionWins() {
        let kiosk = MachineDriver(items: [.local("/srv/media/lobby.mp4"), .url(two)])
        kiosk.start()
        kiosk.show(kiosk.screen(app: dmr, media: "http://10.0.0.5:8090/0/lobby.mp4", session: 3, player: .playing, position: 75))
        guard let id = kiosk.operationID else { return XCTFail("asks the media server") }
        XCTAssertEqual(kiosk.send(.command(.stopLoop)).first { if case .reply = $0 { true } else { false } },
                       .reply(["ok: loop stopped ('playlist start' resumes it)"]))
        kiosk.send(.located(id: id, urls: [0: "http://10.0.0.9:8090/0/lobby.mp4"]))
        XCTAssertEqual(kiosk.mode, .waiting("stopped by 'playlist stop'"))
        XCTAssertTrue(kiosk.loads.isEmpty)
    }

    // MARK: The configured app id

    /// `[cast] app-id` is the machine's configuration: a custom receiver at start, changed by a reload.
    func testTheConfiguredCastAppIsTheKiosksOwnAndAReloadChangesIt() {
        let kiosk = MachineDriver(items: [.url(lobby), .url(two)], castAppID: "ABCDEF12")
        kiosk.start()
        kiosk.show(kiosk.screen(app: "ABCDEF12", media: two, session: 4, player: .playing, position: 8))
        XCTAssertEqual(kiosk.loads.map(\.source), [two], "its own app and item")
        kiosk.loadSucceeds()
        kiosk.show(kiosk.screen(app: "ABCDEF12", media: two, session: 101, player: .playing, position: 8))
        guard case .playing = kiosk.mode else { return XCTFail("its own: \(kiosk.mode)") }
        kiosk.send(.reconfigured(castAppID: dmr))
        XCTAssertEqual(kiosk.machine.castAppID, dmr)
        kiosk.show(kiosk.screen(app: "ABCDEF12", media: two, session: 101, player: .playing, position: 8))
        XCTAssertEqual(kiosk.logs("a guest cast App ABCDEF12").count, 1, "no longer the kiosk's app")
        guard case .guest = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
    }

    // MARK: The state file

    /// The reliability issue: a FIFO (or other non-regular file) at the state path is refused by the
    /// store (`KioskStateFileTests`); the machine then starts from the first item at once.
    func testWithoutAReadableStateTheLoopStartsAtTheFirstItem() {
        let kiosk = driver()
        kiosk.start(saved: nil)
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.map(\.source), [lobby])
        XCTAssertEqual(kiosk.loads.first?.startTime, 0)
        let gone = driver()
        gone.start(saved: KioskSavedState(itemIndex: 5, source: "http://media.test/gone.mp4", position: 50))
        gone.showIdleScreen()
        XCTAssertEqual(gone.loads.map(\.source), [lobby])
        XCTAssertEqual(gone.logs("the saved item http://media.test/gone.mp4 is no longer in the playlist: starting from the first item").count, 1)
        let moved = driver()
        moved.start(saved: KioskSavedState(itemIndex: 0, source: two, position: 50))
        moved.showIdleScreen()
        XCTAssertEqual(moved.loads.map(\.source), [two], "found by its source when its index moved")
        XCTAssertEqual(moved.loads.first?.startTime, 50)
    }

    /// The reliability issue: a saved position of 999,999,999 s is clamped to the item's length, or a day.
    func testASavedPositionIsClampedToTheItemsLengthOrADay() throws {
        let cases: [(position: Double, saved: Double?, listed: Double?, expected: Double)] = [
            (999_999_999, nil, nil, 86_400), (999_999_999, 125.5, nil, 125.5), (999_999_999, nil, 95, 95),
            (-40, nil, nil, 0), (.nan, nil, nil, 0), (.infinity, nil, nil, 0), (12.5, nil, nil, 12.5),
        ]
        for (position, saved, listed, expected) in cases {
            let kiosk = MachineDriver(items: [.url(lobby, duration: listed)])
            kiosk.start(saved: KioskSavedState(itemIndex: 0, source: lobby, position: position, duration: saved))
            kiosk.showIdleScreen()
            XCTAssertEqual(kiosk.loads.first?.startTime, expected, "\(position) \(String(describing: saved)) \(String(describing: listed))")
        }
        // As read from the file, then resumed.
        var note: String?
        let json = try JSONValue(parsing: #"{"version":1,"item":0,"source":"http://media.test/lobby.mp4","position":999999999}"#)
        let read = try XCTUnwrap(KioskSavedState(json: json, note: &note))
        let kiosk = MachineDriver(items: [.url(lobby)])
        kiosk.start(saved: read)
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.first?.startTime, 86_400)
        // A position the receiver reports at start is clamped too.
        let adopted = MachineDriver(items: [.url(lobby)])
        adopted.start()
        adopted.show(adopted.screen(app: dmr, media: lobby, session: 1, player: .playing, position: 999_999_999))
        XCTAssertEqual(adopted.loads.first?.startTime, 86_400)
    }
}
