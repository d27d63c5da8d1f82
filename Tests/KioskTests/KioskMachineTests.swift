import GatewayCore
import GatewayModel
import SystemSupport
import TestSupport
import XCTest
@testable import Kiosk

/// The machine alone: every mode and how it is left, the loop's steps,
/// commands, failures and the timer, on the manual clock.
final class KioskMachineTests: XCTestCase {
    private let one = "http://media.test/one.mp4", slide = "http://media.test/two.jpg", three = "http://media.test/three.mp4"
    private let dmr = MachineDriver.castApp

    /// A kiosk playing item 1 of `items`.
    private func playing(_ items: [PlaylistItem]? = nil, _ adjust: (inout KioskSettings) -> Void = { _ in }) -> MachineDriver {
        let kiosk = MachineDriver(items: items ?? [.url(one, title: "One"), .url(slide), .url(three)], adjust)
        kiosk.start()
        kiosk.showIdleScreen()
        kiosk.loadSucceeds()
        return kiosk
    }

    private func replies(_ effects: [KioskEffect]) -> [KioskEffect] {
        effects.filter { if case .reply = $0 { true } else if case .refuse = $0 { true } else { false } }
    }

    // MARK: The loop

    func testFinishedItemsAdvanceSlidesEndOnTheirOwnTimeAndTheLoopStartsAgain() async {
        let kiosk = playing([.url(one, title: "One"), .url(slide, duration: 7), .url(three)])
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "FINISHED"))
        XCTAssertEqual(kiosk.loads.map(\.source), [one, slide])
        kiosk.loadSucceeds()
        await kiosk.advance(seconds: 6)
        XCTAssertEqual(kiosk.loads.count, 2, "the slide shows its own 7 s")
        XCTAssertTrue(kiosk.status.contains("now: playing item 2/3 \"two.jpg\" 00:06 / 10:00 (slide, 1 s left)"), "\(kiosk.status)")
        await kiosk.advance(seconds: 1)
        XCTAssertEqual(kiosk.loads.map(\.source), [one, slide, three])
        XCTAssertEqual(kiosk.logs("slide 2/3 shown").count, 1)
        kiosk.loadSucceeds()
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "FINISHED"))
        XCTAssertEqual(kiosk.loads.map(\.source), [one, slide, three, one])
        XCTAssertEqual(kiosk.loads.map(\.startTime), [0, 0, 0, 0])
    }

    func testWithoutLoopTheKioskStopsAtTheEnd() {
        let kiosk = playing([.url(one), .url(three)]) { $0.loop = false }
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "FINISHED"))
        kiosk.loadSucceeds()
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "FINISHED"))
        XCTAssertEqual(kiosk.mode, .waiting("finished (loop = false)"))
        XCTAssertEqual(kiosk.loads.map(\.source), [one, three])
        XCTAssertEqual(kiosk.logs("end of the playlist (loop = false)").count, 1)
        XCTAssertEqual(kiosk.saves.last, KioskSavedState(itemIndex: 1, source: three, position: 0))
    }

    func testTheWelcomeAppShowsBetweenRoundsForItsDuration() async {
        let kiosk = playing([.url(one), .url(three)]) { ($0.appID, $0.appDuration) = ("0F0F0F0F", 30) }
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "FINISHED"))
        kiosk.loadSucceeds()
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "FINISHED"))
        guard case .launching(let id, _, _)? = kiosk.machine.state.operation else { return XCTFail("\(kiosk.mode)") }
        XCTAssertTrue(kiosk.effects.contains(.launchWelcome(id: id, appID: "0F0F0F0F")))
        kiosk.send(.launched(id: id, .launched))
        XCTAssertEqual(kiosk.logs("showing the welcome app 0F0F0F0F for 30 s").count, 1)
        kiosk.show(kiosk.screen(app: "0F0F0F0F", mediaKnown: false))
        XCTAssertTrue(kiosk.status.contains("now: welcome app 0F0F0F0F for 30 s more"), "\(kiosk.status)")
        await kiosk.advance(seconds: 29)
        XCTAssertEqual(kiosk.loads.count, 2)
        await kiosk.advance(seconds: 1)
        XCTAssertEqual(kiosk.loads.map(\.source), [one, three, one])
    }

    func testTheWelcomeAppAloneWithoutAPlaylistAndItsFailures() async {
        let kiosk = MachineDriver(items: []) { ($0.source, $0.appID) = (.none, "0F0F0F0F") }
        kiosk.start()
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.effects.filter { if case .launchWelcome = $0 { true } else { false } }.count, 1)
        kiosk.send(.launched(id: kiosk.operationID ?? -1, .failed("LAUNCH_ERROR")))
        guard case .backingOff = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertEqual(kiosk.logs("the welcome app 0F0F0F0F cannot be launched: LAUNCH_ERROR").count, 2, "the warning and the problem")
        await kiosk.advance(seconds: 40)
        kiosk.send(.launched(id: kiosk.operationID ?? -1, .launched))
        XCTAssertEqual(kiosk.mode, .welcome(until: nil, launched: true))
        XCTAssertEqual(kiosk.effects.last { if case .reportProblem = $0 { true } else { false } }, .reportProblem(nil), "healthy again")
        kiosk.showIdleScreen()
        guard case .guest(let guest) = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertFalse(guest.seen, "stopped from a remote, not a guest's app")
    }

    func testNextAndPreviousAndTheirRefusals() {
        let kiosk = playing()
        XCTAssertEqual(replies(kiosk.send(.command(.skip(by: 1)))), [.reply(["ok: item 2/3"])])
        XCTAssertEqual(kiosk.loads.last?.source, slide)
        kiosk.loadSucceeds()
        XCTAssertEqual(replies(kiosk.send(.command(.skip(by: -1)))), [.reply(["ok: item 1/3"])])
        kiosk.loadSucceeds()
        XCTAssertEqual(replies(kiosk.send(.command(.skip(by: -1)))), [.reply(["ok: item 3/3"])], "back from the first is the last")
        XCTAssertEqual(kiosk.loads.map(\.source), [one, slide, one, three])
        kiosk.loadSucceeds()
        kiosk.show(kiosk.screen(app: "ABCDEF12"))
        XCTAssertEqual(replies(kiosk.send(.command(.skip(by: 1)))), [.refuse(GatewayError(.unavailable, "a guest has the screen"))])
        let empty = MachineDriver(items: []) { ($0.source, $0.appID) = (.none, "0F0F0F0F") }
        empty.start()
        XCTAssertEqual(replies(empty.send(.command(.skip(by: 1)))), [.refuse(GatewayError(.badArgument, "no playlist to skip in"))])
    }

    func testPlayingItemNAndItsRefusals() {
        let kiosk = playing()
        XCTAssertEqual(replies(kiosk.send(.command(.play(item: 3)))), [.reply(["ok: item 3/3"])])
        XCTAssertEqual(kiosk.loads.last?.source, three)
        kiosk.loadSucceeds()
        // The loop goes on from there: after item 3 comes item 1.
        XCTAssertEqual(replies(kiosk.send(.command(.skip(by: 1)))), [.reply(["ok: item 1/3"])])
        kiosk.loadSucceeds()
        XCTAssertEqual(replies(kiosk.send(.command(.play(item: 2)))), [.reply(["ok: item 2/3"])])
        XCTAssertEqual(kiosk.loads.map(\.source), [one, three, one, slide])
        kiosk.loadSucceeds()
        let loads = kiosk.loads.count
        XCTAssertEqual(replies(kiosk.send(.command(.play(item: 4)))),
                       [.refuse(GatewayError(.badArgument, "no item 4: the playlist has 3 (see 'playlist')"))])
        XCTAssertEqual(replies(kiosk.send(.command(.play(item: 0)))),
                       [.refuse(GatewayError(.badArgument, "no item 0: the playlist has 3 (see 'playlist')"))])
        XCTAssertEqual(kiosk.loads.count, loads, "a refused item loads nothing")
        kiosk.show(kiosk.screen(app: "ABCDEF12"))
        XCTAssertEqual(replies(kiosk.send(.command(.play(item: 1)))), [.refuse(GatewayError(.unavailable, "a guest has the screen"))])
        let empty = MachineDriver(items: []) { ($0.source, $0.appID) = (.none, "0F0F0F0F") }
        empty.start()
        XCTAssertEqual(replies(empty.send(.command(.play(item: 1)))), [.refuse(GatewayError(.badArgument, "no playlist to play from"))])
    }

    /// The items shown in the gateway's state (Home Assistant's `Play` select reads them there).
    private func shownItems(_ effects: [KioskEffect]) -> [KioskItems] {
        effects.compactMap { if case .showItems(let items) = $0 { items } else { nil } }
    }

    func testTheGatewayIsShownTheItemsAndTheOnePlayingWhenEitherChanges() {
        let kiosk = MachineDriver(items: [.url(one, title: "One"), .url(slide), .url(three)])
        let names = ["One", "two.jpg", "three.mp4"]
        XCTAssertEqual(shownItems(kiosk.start()), [KioskItems(names: names)], "at start: the items, none playing (the first is loading)")
        kiosk.showIdleScreen()
        kiosk.loadSucceeds()
        XCTAssertEqual(shownItems(kiosk.effects).last, KioskItems(names: names, playing: 0))
        let shown = shownItems(kiosk.effects).count
        kiosk.show(kiosk.playingNow())
        XCTAssertEqual(shownItems(kiosk.effects).count, shown, "a snapshot that changes neither: nothing shown again")
        XCTAssertEqual(shownItems(kiosk.send(.command(.play(item: 3)))), [KioskItems(names: names)], "loading item 3")
        kiosk.loadSucceeds()
        XCTAssertEqual(shownItems(kiosk.effects).last, KioskItems(names: names, playing: 2))
        // `playlist reload` renames them, without a config reload; the playing item carries on under its new number.
        let fresh = Playlist(items: [.url("http://media.test/new.mp4", title: "New"), .url(three)], origin: "/etc/cast-gateway/lobby.m3u")
        XCTAssertEqual(shownItems(kiosk.send(.command(.reload(fresh)))), [KioskItems(names: ["New", "three.mp4"], playing: 1)])
        XCTAssertEqual(shownItems(kiosk.show(kiosk.screen(app: "ABCDEF12"))), [KioskItems(names: ["New", "three.mp4"])], "a guest's turn: none playing")
        kiosk.showIdleScreen()
        kiosk.loadSucceeds()
        XCTAssertEqual(shownItems(kiosk.effects).last, KioskItems(names: ["New", "three.mp4"], playing: 1), "back from the guest")
        // A graceful stop (a restart) keeps the items offered, none playing; the daemon clears them without [kiosk].
        XCTAssertEqual(shownItems(kiosk.send(.stopping)), [KioskItems(names: ["New", "three.mp4"])])
        XCTAssertEqual(shownItems(kiosk.show(kiosk.playingNow())), [], "and plays nothing after")
    }

    // MARK: Start, stop and keys

    func testStartKeyWaitsForAPlayKeyAndNeverForPlaylistStart() {
        let kiosk = MachineDriver(items: [.url(one)]) { $0.start = .key }
        kiosk.start()
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.mode, .waiting("waiting for a play key"))
        kiosk.send(.command(.key(.volumeUp(0.05))))
        kiosk.send(.command(.key(nil)))
        XCTAssertTrue(kiosk.loads.isEmpty, "only play keys start it")
        kiosk.send(.command(.key(.play)))
        XCTAssertEqual(kiosk.loads.map(\.source), [one])
        XCTAssertEqual(kiosk.logs("play pressed: starting the loop").count, 1)

        // A play key (or `playlist start`) that comes while the kiosk is still starting is kept.
        let early = MachineDriver(items: [.url(one)]) { $0.start = .key }
        early.send(.command(.key(.play)))
        XCTAssertTrue(early.loads.isEmpty, "nothing is loaded before the start is known")
        early.start()
        early.showIdleScreen()
        XCTAssertEqual(early.loads.map(\.source), [one], "the early key started the loop")

        let never = MachineDriver(items: [.url(one)]) { $0.start = .never }
        never.start()
        never.showIdleScreen()
        never.send(.command(.key(.play)))
        XCTAssertEqual(never.mode, .waiting("waiting for 'playlist start'"))
        XCTAssertEqual(replies(never.send(.command(.startLoop))), [.reply(["ok: loop started"])])
        XCTAssertEqual(never.loads.map(\.source), [one])
        XCTAssertEqual(replies(never.send(.command(.startLoop))), [.reply(["ok: the loop is already running"])])
    }

    func testPlaylistStopHoldsThePositionStopsItsOwnAppAndStartResumesIt() async {
        let kiosk = playing()
        await kiosk.advance(seconds: 42)
        kiosk.show(kiosk.playingNow())
        let stop = kiosk.send(.command(.stopLoop))
        XCTAssertEqual(replies(stop), [.reply(["ok: loop stopped ('playlist start' resumes it)"])])
        XCTAssertTrue(stop.contains(.stopApp(failsCommand: true)), "\(stop)")
        XCTAssertEqual(kiosk.mode, .waiting("stopped by 'playlist stop'"))
        XCTAssertEqual(kiosk.saves.last?.position, 42)
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.count, 1)
        XCTAssertEqual(replies(kiosk.send(.command(.startLoop))), [.reply(["ok: loop started"])])
        XCTAssertEqual(kiosk.loads.map(\.source), [one, one])
        // A guest's app is not stopped by `playlist stop`.
        kiosk.loadSucceeds()
        kiosk.show(kiosk.screen(app: "ABCDEF12"))
        XCTAssertFalse(kiosk.send(.command(.stopLoop)).contains(.stopApp(failsCommand: true)))
        XCTAssertEqual(replies(kiosk.send(.command(.startLoop))), [.reply(["ok: loop started"])])
    }

    func testCheckoutHoldsTheLoopWhileTheGatewayIsClearedThenRestartsAtItemOne() {
        let kiosk = playing() { $0.volume = 25 }
        kiosk.send(.command(.skip(by: 1)))
        kiosk.loadSucceeds()
        kiosk.show(kiosk.screen(app: "0F0F0F0F"))
        guard case .guest = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        let first = kiosk.send(.command(.checkout))
        XCTAssertEqual(first, [.clearGuest(volume: 25)])
        XCTAssertEqual(kiosk.mode, .waiting("checkout"))
        kiosk.showIdleScreen()  // the guest's app stopped: not a return from a guest
        XCTAssertEqual(kiosk.loads.count, 2)
        let second = kiosk.send(.guestCleared(done: ["stopped App 0F0F0F0F", "typed credentials cleared", "volume 25%"], failures: []))
        XCTAssertEqual(replies(second), [.reply(["ok: checkout: stopped App 0F0F0F0F, typed credentials cleared, volume 25%, loop restarted from item 1"])])
        XCTAssertEqual(kiosk.loads.last?.source, one)
        XCTAssertEqual(kiosk.loads.last?.startTime, 0)
        XCTAssertEqual(kiosk.saves.last, KioskSavedState(itemIndex: 0, source: one, position: 0))
        let volumeNotSet = KioskProblem(.volumeNotSet, "could not set the volume to 25%: no")
        let failed = kiosk.send(.command(.checkout)) + kiosk.send(.guestCleared(done: ["typed credentials cleared"], failures: [volumeNotSet]))
        XCTAssertEqual(replies(failed), [.reply(KioskReply(["ok: checkout: typed credentials cleared, loop restarted from item 1"], problems: [volumeNotSet]))])
    }

    func testAReloadedPlaylistKeepsTheCurrentItemOrStartsOver() {
        let kiosk = playing([.url(one), .url(three)])
        let fresh = Playlist(items: [.url("http://media.test/new.mp4"), .url(one)], origin: "/etc/cast-gateway/lobby.m3u")
        XCTAssertEqual(replies(kiosk.send(.command(.reload(fresh)))), [.reply(["ok: playlist reloaded: 2 items, item 2 carries on"])])
        XCTAssertEqual(kiosk.loads.count, 1, "the playing item is not loaded again")
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "FINISHED"))
        XCTAssertEqual(kiosk.loads.map(\.source), [one, "http://media.test/new.mp4"])
        kiosk.loadSucceeds()
        let other = Playlist(items: [.url(three)], origin: "/etc/cast-gateway/lobby.m3u")
        XCTAssertEqual(replies(kiosk.send(.command(.reload(other)))), [.reply(["ok: playlist reloaded: 1 items, from the first item"])])
        XCTAssertEqual(kiosk.loads.last?.source, three)
    }

    // MARK: Guests while playing

    func testAGuestAppTakesOverWithoutAFightAndTheItemResumesWhenItStops() async {
        let kiosk = playing()
        await kiosk.advance(seconds: 40)
        kiosk.show(kiosk.screen(app: "ABCDEF12", player: .none, mediaKnown: false))
        guard case .guest(let guest) = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertTrue(guest.seen)
        XCTAssertEqual(kiosk.logs("a guest cast App ABCDEF12: the loop pauses and returns when the guest's app stops or after 15 min with nothing playing").count, 1)
        XCTAssertEqual(kiosk.saves.last?.position, 40, "where it was, saved")
        await kiosk.advance(seconds: 5 * 60)
        XCTAssertEqual(kiosk.loads.count, 1, "minutes of a guest: no LOAD")
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.map(\.source), [one, one])
        XCTAssertEqual(kiosk.loads.last?.startTime, 40)
    }

    func testTheKiosksItemStoppedFromARemoteWaitsForTheIdleLimit() async {
        let kiosk = playing() { $0.guestIdleMinutes = 1 }
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "CANCELLED"))
        guard case .guest(let guest) = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertFalse(guest.seen)
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.count, 1, "no guest seen: the app stopping is not the end of one")
        await kiosk.advance(seconds: 60)
        XCTAssertEqual(kiosk.loads.count, 2)
    }

    func testGuestIdleTimingCountsFromWhenNothingPlaysAndRestartsWhenSomethingDoes() async {
        let kiosk = playing() { $0.guestIdleMinutes = 2 }
        let holiday = "http://phone.test/holiday.mp4"
        kiosk.show(kiosk.screen(app: dmr, media: holiday, session: 900, player: .playing, position: 0, duration: 30))
        XCTAssertEqual(kiosk.logs("a guest loaded other media").count, 1)
        await kiosk.advance(seconds: 30)
        kiosk.show(kiosk.screen(app: dmr, media: holiday, session: 900, player: .idle, position: 30, duration: 30, idleReason: "FINISHED"))
        XCTAssertTrue(kiosk.status.contains("now: a guest has the screen (Default Media Receiver); back to the loop in 120 s unless something plays"),
                      "\(kiosk.status)")
        await kiosk.advance(seconds: 100)
        kiosk.show(kiosk.screen(app: dmr, media: holiday, session: 900, player: .playing, position: 0, duration: 30))
        await kiosk.advance(seconds: 30)
        kiosk.show(kiosk.screen(app: dmr, media: holiday, session: 900, player: .idle, position: 30, duration: 30, idleReason: "FINISHED"))
        await kiosk.advance(seconds: 119)
        XCTAssertEqual(kiosk.loads.count, 1, "2 minutes with nothing playing have not passed")
        await kiosk.advance(seconds: 1)
        XCTAssertEqual(kiosk.loads.map(\.source), [one, one])
        XCTAssertEqual(kiosk.logs("nothing played for 2 min: back to the loop").count, 1)
    }

    func testWithGuestIdleZeroOnlyTheGuestsAppStoppingEndsIt() async {
        let kiosk = playing() { $0.guestIdleMinutes = 0 }
        kiosk.show(kiosk.screen(app: "ABCDEF12", player: .none, mediaKnown: false))
        XCTAssertNil(kiosk.armed, "no deadline at all")
        await kiosk.advance(seconds: 3 * 3600)
        XCTAssertEqual(kiosk.loads.count, 1)
        XCTAssertTrue(kiosk.status.contains { $0.hasSuffix("back to the loop when the guest's app stops") }, "\(kiosk.status)")
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.count, 2)
    }

    func testThePreviousItemsLastStatusAfterTheNextLoadIsNotAGuest() {
        let kiosk = playing()
        let finished = kiosk.playingNow(player: .idle, idleReason: "FINISHED")
        kiosk.show(finished)
        guard let id = kiosk.operationID else { return XCTFail("the next LOAD") }
        kiosk.send(.loaded(id: id, .loaded(url: slide, state: finished)))
        kiosk.show(finished)
        guard case .playing(let playing) = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        XCTAssertEqual(playing.contentID, slide)
        XCTAssertEqual(kiosk.logs("a guest"), [])
        kiosk.show(kiosk.screen(app: dmr, media: slide, session: 555, player: .playing, position: 0))
        kiosk.show(kiosk.screen(app: dmr, media: "http://phone.test/x.mp4", session: 556, player: .playing, position: 0))
        XCTAssertEqual(kiosk.logs("a guest loaded other media").count, 1)
    }

    // MARK: Failures

    func testAFailedItemIsTriedOnceMoreThenSkippedAndEveryItemFailingBacksOff() async {
        let kiosk = MachineDriver(items: [.url(one), .url(three), .local("/srv/media/local.mp4")])
        kiosk.start()
        kiosk.showIdleScreen()
        kiosk.loadFails(.failed("LOAD_FAILED"))
        XCTAssertEqual(kiosk.mode, .loading(attempt: 2, notBefore: kiosk.clock.now + .seconds(2)))
        await kiosk.advance(seconds: 1)
        XCTAssertEqual(kiosk.loads.count, 1, "not before 2 s")
        await kiosk.advance(seconds: 1)
        XCTAssertEqual(kiosk.loads.map(\.source), [one, one])
        kiosk.loadFails(.failed("LOAD_FAILED"))
        XCTAssertEqual(kiosk.loads.map(\.source), [one, one, three], "skipped at once")
        kiosk.loadFails(.linkDown("not connected"))
        XCTAssertEqual(kiosk.mode, .loading(attempt: 1, notBefore: kiosk.clock.now + .seconds(2)), "the link, not the item: the same attempt")
        await kiosk.advance(seconds: 2)
        kiosk.loadFails(.failed("LOAD_FAILED"))
        await kiosk.advance(seconds: 2)
        kiosk.loadFails(.failed("LOAD_FAILED"))
        XCTAssertEqual(kiosk.loads.last?.source, "/srv/media/local.mp4")
        kiosk.loadFails(.unservable("local files need [media] roots"))
        guard case .backingOff(let until) = kiosk.mode else { return XCTFail("\(kiosk.mode)") }
        let delay = (until - kiosk.clock.now).seconds
        XCTAssertTrue((24...36).contains(delay), "about 30 s: \(delay)")
        let problem = "every item of /etc/cast-gateway/lobby.m3u failed (last: /srv/media/local.mp4: local files need [media] roots); trying again in "
        guard case .reportProblem(let reported?)? = kiosk.effects.last(where: { if case .reportProblem = $0 { true } else { false } }) else {
            return XCTFail("a problem is reported")
        }
        XCTAssertTrue(reported.hasPrefix(problem), reported)
        XCTAssertEqual(kiosk.loads.count, 6, "the local file is not tried twice")
        XCTAssertTrue(kiosk.status.contains { $0.hasPrefix("problem: " + problem) }, "\(kiosk.status)")
        await kiosk.advance(seconds: Int(delay) + 1)
        XCTAssertEqual(kiosk.loads.count, 7, "the next round")
        kiosk.loadSucceeds()
        XCTAssertEqual(kiosk.effects.last { if case .reportProblem = $0 { true } else { false } }, .reportProblem(nil), "healthy: the problem clears")
    }

    /// Found in the redesign: after a LOAD failed for the link, a retry deadline that passed while the link
    /// stayed down (or while the next LOAD was in flight) was armed again and again: the actor spun.
    func testARetryDeadlineDoesNotSpinWhileTheLinkIsDownOrALoadIsInFlight() async {
        let kiosk = MachineDriver(items: [.url(one)])
        kiosk.start()
        kiosk.showIdleScreen()
        kiosk.loadFails(.linkDown("not connected"))
        kiosk.show(kiosk.screen(link: .reconnecting(retryInSeconds: 30)))
        await kiosk.advance(seconds: 60)
        XCTAssertNil(kiosk.armed, "nothing to do before the link is back")
        XCTAssertEqual(kiosk.loads.count, 1)
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.loads.count, 2, "the link is back: loaded at once")
        kiosk.loadFails(.failed("LOAD_FAILED"))
        await kiosk.advance(seconds: 2)
        XCTAssertEqual(kiosk.loads.count, 3, "the retry")
        XCTAssertNil(kiosk.armed, "its outcome drives next, not a past deadline")
        kiosk.showIdleScreen()
        await kiosk.advance(seconds: 60)
        XCTAssertEqual(kiosk.loads.count, 3)
    }

    func testAnItemTheReceiverCannotPlayIsRetried() async {
        let kiosk = playing()
        kiosk.show(kiosk.playingNow(player: .idle, idleReason: "ERROR"))
        XCTAssertEqual(kiosk.mode, .loading(attempt: 2, notBefore: kiosk.clock.now + .seconds(2)))
        await kiosk.advance(seconds: 2)
        XCTAssertEqual(kiosk.loads.map(\.source), [one, one])
    }

    func testAnOutcomeACommandOvertookIsIgnored() {
        let kiosk = MachineDriver(items: [.url(one), .url(three)])
        kiosk.start()
        kiosk.showIdleScreen()
        guard let id = kiosk.operationID else { return XCTFail("a LOAD in flight") }
        kiosk.send(.command(.stopLoop))
        kiosk.send(.loaded(id: id, .loaded(url: one, state: kiosk.screen(app: dmr, media: one, session: 1, player: .playing, position: 0))))
        XCTAssertEqual(kiosk.mode, .waiting("stopped by 'playlist stop'"))
        XCTAssertEqual(kiosk.loads.count, 1)
        // Skipped while loading: the skipped-to item is loaded once the first LOAD is answered.
        kiosk.send(.command(.startLoop))
        guard let second = kiosk.operationID else { return XCTFail("a LOAD in flight") }
        kiosk.send(.command(.skip(by: 1)))
        XCTAssertEqual(kiosk.loads.count, 2, "one operation at a time")
        kiosk.send(.loaded(id: second, .failed("LOAD_FAILED")))
        XCTAssertEqual(kiosk.loads.map(\.source), [one, one, three])
        XCTAssertEqual(kiosk.logs("failed"), [], "the overtaken failure is not counted")
    }

    // MARK: Schedule

    func testTheScheduleStopsAt2300WithStandbyAndStartsAgainAt0700WhereItWas() async {
        let kiosk = MachineDriver(items: [.url(one), .url(three)], hour: 22, minute: 58) { $0.schedule = try! Schedule.parse("07:00-23:00").get() }
        kiosk.start()
        kiosk.showIdleScreen()
        kiosk.loadSucceeds(duration: 3600)
        await kiosk.advance(seconds: 119)
        XCTAssertEqual(kiosk.loads.count, 1)
        XCTAssertFalse(kiosk.effects.contains(.tvStandby))
        await kiosk.advance(seconds: 1)  // 23:00:00
        XCTAssertEqual(kiosk.mode, .closed)
        XCTAssertTrue(kiosk.effects.contains(.stopApp(failsCommand: false)))
        XCTAssertTrue(kiosk.effects.contains(.tvStandby))
        XCTAssertEqual(kiosk.saves.last?.position, 120)
        XCTAssertEqual(kiosk.status.suffix(2), ["now: outside the schedule", "schedule: 07:00-23:00 (closed now)"])
        kiosk.send(.tvControlMissing)
        kiosk.send(.tvControlMissing)
        XCTAssertEqual(kiosk.logs("but HDMI-CEC is not set up ([cec])").count, 1, "said once")
        kiosk.showIdleScreen()
        XCTAssertEqual(replies(kiosk.send(.command(.skip(by: 1)))), [.refuse(GatewayError(.unavailable, "outside the schedule"))])
        XCTAssertEqual(replies(kiosk.send(.command(.startLoop))), [.reply(["ok: the loop starts in the next schedule window"])])
        // The night passes (the wall clock jumps): looked at again within a minute.
        kiosk.wallClock.set(hour: 6, minute: 59, second: 30)
        await kiosk.advance(seconds: 20)
        XCTAssertEqual(kiosk.loads.count, 1, "06:59:50 is still closed")
        await kiosk.advance(seconds: 60)
        XCTAssertEqual(kiosk.loads.map(\.source), [one, one])
        XCTAssertEqual(kiosk.loads.last?.startTime, 120, "where the evening left it")
    }

    func testAGuestAtClosingTimeKeepsTheScreenAndAStartOutsideTheScheduleWaits() async {
        let kiosk = MachineDriver(items: [.url(one)], hour: 22, minute: 59) { $0.schedule = try! Schedule.parse("07:00-23:00").get() }
        kiosk.start()
        kiosk.showIdleScreen()
        kiosk.loadSucceeds()
        kiosk.show(kiosk.screen(app: "ABCDEF12"))
        await kiosk.advance(seconds: 60)
        XCTAssertEqual(kiosk.mode, .closed)
        XCTAssertFalse(kiosk.effects.contains(.stopApp(failsCommand: false)))
        XCTAssertFalse(kiosk.effects.contains(.tvStandby))
        XCTAssertEqual(kiosk.logs("a guest is casting, so the screen is left alone").count, 1)

        let night = MachineDriver(items: [.url(one)], hour: 3, minute: 0) { $0.schedule = try! Schedule.parse("07:00-23:00").get() }
        night.start()
        night.showIdleScreen()
        XCTAssertEqual(night.mode, .closed)
        XCTAssertEqual(night.logs("outside the schedule (07:00-23:00): waiting").count, 1)
        XCTAssertTrue(night.loads.isEmpty)
    }

    // MARK: Saving and stopping

    func testThePositionIsSavedEveryFiveSecondsWhileItMovesAndAtAGracefulStop() async {
        let kiosk = playing()
        await kiosk.advance(seconds: 15)
        XCTAssertEqual(kiosk.saves.map(\.position), [0, 5, 10, 15])
        kiosk.show(kiosk.playingNow(player: .paused))
        await kiosk.advance(seconds: 10)
        XCTAssertEqual(kiosk.saves.map(\.position), [0, 5, 10, 15], "paused: nothing new to save")
        XCTAssertEqual(kiosk.saves.last?.duration, 600, "the length the receiver reported")
        let stop = kiosk.send(.stopping)
        XCTAssertEqual(stop.filter { if case .log = $0 { false } else { true } }.dropFirst(),
                       [.save(KioskSavedState(itemIndex: 0, source: one, position: 15, duration: 600)), .flushSaves, .reportProblem(nil),
                        .showItems(KioskItems(names: ["One", "two.jpg", "three.mp4"]))])
        XCTAssertNil(kiosk.armed)

        let dropped = playing()
        dropped.send(.dropped)
        await dropped.advance(seconds: 10)
        XCTAssertEqual(dropped.send(.stopping).filter { if case .save = $0 { true } else { false } }, [], "kill -9 saves nothing")
        XCTAssertEqual(dropped.saves.count, 1)
    }

    func testTheTimerIsArmedOnlyWhenItsDeadlineMovesAndAStaleFiringDoesNothing() async {
        let kiosk = playing()
        let arms = kiosk.effects.filter { if case .armTimer = $0 { true } else { false } }
        XCTAssertEqual(arms.count, 1, "\(kiosk.effects)")
        guard let armed = kiosk.armed else { return XCTFail("the save is due") }
        XCTAssertEqual(armed.deadline, kiosk.clock.now + .seconds(5))
        kiosk.show(kiosk.playingNow())
        XCTAssertEqual(kiosk.effects.filter { if case .armTimer = $0 { true } else { false } }.count, 1, "same deadline, not armed again")
        XCTAssertTrue(kiosk.send(.timerFired(id: armed.id + 7)).isEmpty)
        await kiosk.advance(seconds: 5)
        XCTAssertEqual(kiosk.armed?.deadline, kiosk.clock.now + .seconds(5))
    }

    func testAPlaylistThatCannotBeReadIsReportedAndNothingPlays() {
        let kiosk = MachineDriver(items: [])
        let error = PlaylistError(file: "/etc/cast-gateway/lobby.m3u", line: nil, message: "cannot read the playlist: it does not exist")
        let effects = kiosk.start(playlist: .failure(error))
        XCTAssertTrue(effects.contains(.reportProblem("/etc/cast-gateway/lobby.m3u: cannot read the playlist: it does not exist")), "\(effects)")
        kiosk.showIdleScreen()
        XCTAssertEqual(kiosk.mode, .waiting("nothing to play"))
        XCTAssertTrue(kiosk.loads.isEmpty)
    }
}
