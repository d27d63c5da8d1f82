import Configuration
import Foundation
import SystemSupport
import XCTest
@testable import Kiosk

final class PlaylistTests: XCTestCase {
    func testExtendedM3UTitlesDurationsCommentsAndRelativePaths() throws {
        let text = """
            \u{FEFF}#EXTM3U\r
            # the lobby loop\r
            #EXTINF:-1,Welcome film\r
            https://cdn.example.com/welcome.mp4\r

            #EXTINF:12 tvg-id="x",Breakfast menu
            slides/breakfast.jpg
            # duration=20
            /srv/media/spa.png
            file:///srv/media/music.mp3
            http://radio.example.com/live.aac
            """
        let playlist = try Playlist.parse(text, path: "/etc/cast-gateway/lobby.m3u")
        XCTAssertEqual(playlist.items.count, 5)
        XCTAssertEqual(playlist.items[0], PlaylistItem(location: .url("https://cdn.example.com/welcome.mp4"), title: "Welcome film", kind: .video))
        XCTAssertEqual(playlist.items[1].location, .localPath("/etc/cast-gateway/slides/breakfast.jpg"))
        XCTAssertEqual(playlist.items[1].title, "Breakfast menu")
        XCTAssertEqual(playlist.items[1].kind, .image)
        XCTAssertEqual(playlist.items[1].duration, 12)
        XCTAssertEqual(playlist.items[2].duration, 20, "# duration= applies to the next item")
        XCTAssertNil(playlist.items[2].title)
        XCTAssertEqual(playlist.items[3].location, .localPath("/srv/media/music.mp3"))
        XCTAssertEqual(playlist.items[3].kind, .audio)
        XCTAssertNil(playlist.items[4].duration, "durations do not leak to later items")
    }

    func testPlainListAndErrorsNameFileAndLine() throws {
        let plain = try Playlist.parse("http://a.test/1.mp4\nhttp://a.test/2.webm\n", path: "/p/list.txt")
        XCTAssertEqual(plain.items.map(\.source), ["http://a.test/1.mp4", "http://a.test/2.webm"])
        XCTAssertThrowsError(try Playlist.parse("http://a.test/1.mp4\nrtsp://cam.test/stream\n", path: "/p/list.m3u")) { error in
            XCTAssertEqual((error as? PlaylistError)?.line, 2)
            XCTAssertTrue("\(error)".hasPrefix("/p/list.m3u:2: 'rtsp://' is not supported"), "\(error)")
        }
        XCTAssertThrowsError(try Playlist.parse("#EXTINF:abc,Title\nhttp://a.test/1.mp4\n", path: "/p/x.m3u")) { error in
            XCTAssertEqual((error as? PlaylistError)?.line, 1)
        }
        XCTAssertThrowsError(try Playlist.parse("# duration=0\nhttp://a.test/1.jpg\n", path: "/p/x.m3u"))
        XCTAssertThrowsError(try Playlist.parse("http://a.test/\u{0}.mp4\n", path: "/p/x.m3u")) { error in
            XCTAssertTrue("\(error)".contains("control characters"), "\(error)")
        }
        XCTAssertThrowsError(try Playlist.parse("# only comments\n\n", path: "/p/empty.m3u")) { error in
            XCTAssertTrue("\(error)".contains("no items"), "\(error)")
        }
    }

    func testMediaDirectoryInNameOrderSkipsHiddenAndUnknownFiles() throws {
        let directory = NSTemporaryDirectory() + "kiosk-dir-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["b.mp4", "a.jpg", ".hidden.mp4", "notes.txt", "c.MP3", "a.vtt"] {
            _ = FileManager.default.createFile(atPath: directory + "/" + name, contents: Data([1]))
        }
        try FileManager.default.createDirectory(atPath: directory + "/z.mp4", withIntermediateDirectories: true)
        let playlist = try Playlist.scan(directory: directory)
        XCTAssertEqual(playlist.items.map { KioskPlayer.fileName($0.source) }, ["a.jpg", "b.mp4", "c.MP3"])
        XCTAssertEqual(playlist.items.map(\.kind), [.image, .video, .audio])
        XCTAssertThrowsError(try Playlist.scan(directory: directory + "/missing"))
    }

    func testOrderAdvancePreviousLoopAndSeededShuffle() {
        let items = (1...5).map { PlaylistItem(location: .url("http://a.test/\($0).mp4")) }
        var playlist = Playlist(items: items)
        var generator = SeededGenerator(seed: 42)
        XCTAssertEqual(playlist.currentIndex, 0)
        for expected in 1...4 {
            XCTAssertTrue(playlist.advance(loop: false, shuffle: false, using: &generator))
            XCTAssertEqual(playlist.currentIndex, expected)
        }
        XCTAssertFalse(playlist.advance(loop: false, shuffle: false, using: &generator), "no loop: stays at the end")
        XCTAssertEqual(playlist.currentIndex, 4)
        XCTAssertTrue(playlist.advance(loop: true, shuffle: false, using: &generator))
        XCTAssertEqual(playlist.currentIndex, 0)
        playlist.previous()
        XCTAssertEqual(playlist.currentIndex, 4)

        var first = Playlist(items: items), second = Playlist(items: items)
        var a = SeededGenerator(seed: 7), b = SeededGenerator(seed: 7)
        first.rewind(shuffle: true, using: &a)
        second.rewind(shuffle: true, using: &b)
        XCTAssertEqual(first.order, second.order, "the same seed gives the same order")
        XCTAssertEqual(first.order.sorted(), [0, 1, 2, 3, 4])
        // A whole round visits every item once.
        var seen: [Int] = []
        for _ in 0..<5 {
            seen.append(first.currentIndex ?? -1)
            first.advance(loop: true, shuffle: true, using: &a)
        }
        XCTAssertEqual(seen.sorted(), [0, 1, 2, 3, 4])
        XCTAssertNotEqual(first.currentIndex, seen.last, "a new round does not repeat the item just played")
    }

    func testTheBoxsOwnLocalFileIsRecognisedAfterItsAddressOrPortChanged() {
        // After a power cut the box may have a new lease or port; the receiver still shows the old URL.
        XCTAssertTrue(KioskPlayer.isSameMedia("http://10.0.0.5:8090/0/lobby.mp4", "http://10.0.0.9:41000/0/lobby.mp4", local: true))
        XCTAssertTrue(KioskPlayer.isSameMedia("http://[fd00::5]:8090/0/a.mp4", "http://10.0.0.9:8090/0/a.mp4", local: true))
        XCTAssertFalse(KioskPlayer.isSameMedia("http://10.0.0.5:8090/0/lobby.mp4", "http://10.0.0.5:8090/0/other.mp4", local: true))
        // After a reboot the media server's per-boot token differs: still the kiosk's file.
        XCTAssertTrue(KioskPlayer.isSameMedia("http://10.0.0.5:8090/1f18f880acfb458e80b3b4acda3445e8/0/lobby.mp4",
                                              "http://10.0.0.5:8090/0123456789abcdef0123456789abcdef/0/lobby.mp4", local: true))
        XCTAssertFalse(KioskPlayer.isSameMedia("http://10.0.0.5:8090/1f18f880acfb458e80b3b4acda3445e8/0/lobby.mp4",
                                               "http://10.0.0.5:8090/0123456789abcdef0123456789abcdef/1/lobby.mp4", local: true))
        XCTAssertFalse(KioskPlayer.isSameMedia("https://phone.test/0/lobby.mp4", "http://10.0.0.5:8090/0/lobby.mp4", local: true))
        // A URL item is the same only as itself: a guest's copy on another host is a guest's.
        XCTAssertTrue(KioskPlayer.isSameMedia("https://cdn.test/a.mp4", "https://cdn.test/a.mp4", local: false))
        XCTAssertFalse(KioskPlayer.isSameMedia("http://other.test/a.mp4", "http://cdn.test/a.mp4", local: false))
    }

    func testScheduleWindowsIncludingMidnightWrap() throws {
        let day = try Schedule.parse("07:00-23:00").get()
        XCTAssertFalse(day.isOpen(atSecondOfDay: 6 * 3600 + 59 * 60 + 59))
        XCTAssertTrue(day.isOpen(atSecondOfDay: 7 * 3600))
        XCTAssertTrue(day.isOpen(atSecondOfDay: 22 * 3600 + 59 * 60))
        XCTAssertFalse(day.isOpen(atSecondOfDay: 23 * 3600))
        XCTAssertEqual(day.secondsUntilChange(fromSecondOfDay: 22 * 3600 + 59 * 60), 60)
        XCTAssertEqual(day.secondsUntilChange(fromSecondOfDay: 23 * 3600), 8 * 3600)
        let night = try Schedule.parse("22:00-02:00, 12:00-13:00").get()
        XCTAssertTrue(night.isOpen(atSecondOfDay: 23 * 3600))
        XCTAssertTrue(night.isOpen(atSecondOfDay: 1 * 3600))
        XCTAssertFalse(night.isOpen(atSecondOfDay: 2 * 3600))
        XCTAssertTrue(night.isOpen(atSecondOfDay: 12 * 3600 + 30 * 60))
        XCTAssertEqual(night.secondsUntilChange(fromSecondOfDay: 1 * 3600), 3600)
        let always = try Schedule.parse("00:00-24:00").get()
        XCTAssertTrue(always.isOpen(atSecondOfDay: 0))
        XCTAssertTrue(always.isOpen(atSecondOfDay: 86_399))
        XCTAssertNil(always.secondsUntilChange(fromSecondOfDay: 100))
        XCTAssertNil(Schedule().secondsUntilChange(fromSecondOfDay: 100))
        for bad in ["7-23", "07:00", "25:00-26:00", "07:00-07:00", "07:60-08:00", "", "07:00-23:00,"] {
            if case .success = Schedule.parse(bad) { XCTFail("'\(bad)' must be refused") }
        }
    }

    func testSettingsDefaultsAndErrorsNameFileLineAndKey() throws {
        func parse(_ text: String) throws -> KioskSettings {
            try ConfigFile(path: "/etc/cast-gateway/gateway.conf", text: text).settings(KioskSettings.self)
        }
        XCTAssertFalse(try parse("").isEnabled)
        let settings = try parse("[kiosk]\nplaylist = lobby.m3u\nschedule = 07:00-23:00\n")
        XCTAssertTrue(settings.isEnabled)
        XCTAssertEqual(settings.source, .playlist("/etc/cast-gateway/lobby.m3u"))
        XCTAssertEqual(settings.loop, true)
        XCTAssertEqual(settings.shuffle, false)
        XCTAssertEqual(settings.imageDuration, 10)
        XCTAssertEqual(settings.start, .boot)
        XCTAssertEqual(settings.guestIdleMinutes, 15)
        XCTAssertEqual(settings.volume, 30)
        XCTAssertEqual(settings.statePath, "/var/lib/cast-gateway/kiosk-state.json")
        XCTAssertEqual(settings.schedule.windows, [Schedule.Window(start: 420, end: 1380)])
        let cases: [(String, Int, String)] = [
            ("[kiosk]\nplaylist = a.m3u\nvolume = 130\n", 3, "[kiosk] volume"),
            ("[kiosk]\nplaylist = a.m3u\nschedule = 7-23\n", 3, "[kiosk] schedule"),
            ("[kiosk]\nplaylist = a.m3u\nstart = later\n", 3, "[kiosk] start"),
            ("[kiosk]\nplaylist = a.m3u\nmedia = /srv/media\n", 3, "[kiosk] media"),
            ("[kiosk]\nplaylist = a.m3u\nimage-duration = 0\n", 3, "[kiosk] image-duration"),
            ("[kiosk]\nplaylist = a.m3u\nstate-directory = var/lib\n", 3, "[kiosk] state-directory"),
            ("[kiosk]\nplaylist = a.m3u\nloops = true\n", 3, "[kiosk] loops"),
            ("[kiosk]\nloop = false\n", 1, "[kiosk]"),
        ]
        for (text, line, key) in cases {
            XCTAssertThrowsError(try parse(text), text) { error in
                let error = error as? ConfigError
                XCTAssertEqual(error?.file, "/etc/cast-gateway/gateway.conf")
                XCTAssertEqual(error?.line, line, text)
                XCTAssertEqual(error?.key, key, text)
            }
        }
        XCTAssertEqual(try parse("[kiosk]\napp-id = 1A2B3C4D\n").appID, "1A2B3C4D", "a welcome app alone is a kiosk")
    }

    func testAtomicWriteReplacesTheFileAndLeavesNoTemporaryBehind() throws {
        let directory = NSTemporaryDirectory() + "kiosk-atomic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/state.json"
        try FileSystem.writeAtomically(path, bytes: Array("first".utf8))
        try FileSystem.writeAtomically(path, bytes: Array("second".utf8), mode: 0o600)
        XCTAssertEqual(try FileSystem.readText(path), "second")
        XCTAssertEqual(FileSystem.permissions(of: path), 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["state.json"])
        XCTAssertThrowsError(try FileSystem.writeAtomically(directory + "/missing/state.json", bytes: [1]))

        let store = KioskStateStore(path: path)
        store.save(KioskSavedState(itemIndex: 2, source: "http://a.test/3.mp4", position: 42.5))
        await_(store)
        XCTAssertEqual(store.load(), KioskSavedState(itemIndex: 2, source: "http://a.test/3.mp4", position: 42.5))
        try FileSystem.writeAtomically(path, bytes: Array("{\"item\": -1, \"source\": \"x\", \"position\": 1}".utf8))
        XCTAssertNil(store.load(), "a state with an impossible index is ignored")
    }

    private func await_(_ store: KioskStateStore) {
        let done = expectation(description: "flushed")
        Task {
            await store.flush()
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
    }
}
