import MediaServer
import XCTest

/// The pure request-target validator (also fuzzed: Fuzz/FuzzMediaPath.swift).
final class MediaRequestPathTests: XCTestCase {
    private func parse(_ target: String, roots: Int = 2) -> Result<MediaRequestPath, MediaRequestPath.Rejection> {
        MediaRequestPath.parse(target, rootCount: roots)
    }

    func testAcceptsAndDecodesNormalPaths() {
        XCTAssertEqual(parse("/0/video.mp4"), .success(MediaRequestPath(rootIndex: 0, components: ["video.mp4"])))
        XCTAssertEqual(parse("/1/Movies/Sub%20Dir/%C3%A4%20b%2Bc.mkv?x=1#y"),
                       .success(MediaRequestPath(rootIndex: 1, components: ["Movies", "Sub Dir", "ä b+c.mkv"])))
        XCTAssertEqual(parse("/0/a+b.mp4"), .success(MediaRequestPath(rootIndex: 0, components: ["a+b.mp4"])))
        XCTAssertEqual(parse("/0/name..with..dots.mp4"), .success(MediaRequestPath(rootIndex: 0, components: ["name..with..dots.mp4"])))
        XCTAssertEqual(parse("/0/..."), .failure(.hidden))
    }

    func testRefusals() {
        let cases: [(String, MediaRequestPath.Rejection)] = [
            ("", .notAFilePath), ("video.mp4", .notAFilePath), ("/", .notAFilePath), ("/0", .notAFilePath),
            ("/0/", .emptyComponent), ("/0//x", .emptyComponent), ("/0/dir/", .emptyComponent),
            ("/0/..", .traversal), ("/0/../x", .traversal), ("/0/a/./b", .traversal),
            ("/0/%2e%2e/x", .traversal), ("/0/%2E%2e/x", .traversal), ("/0/.%2E/x", .traversal), ("/0/%2e", .traversal),
            ("/0/.hidden", .hidden), ("/0/%2ehidden", .hidden),
            ("/0/a%2fb", .encodedSeparator), ("/0/a%2Fb", .encodedSeparator), ("/0/a%5cb", .encodedSeparator),
            ("/0/a\\b", .encodedSeparator), ("/0/..%2f..%2fetc", .encodedSeparator),
            ("/0/a%00b", .nul), ("/0/%00", .nul),
            ("/0/a%0ab", .controlCharacter), ("/0/a%7Fb", .controlCharacter), ("/0/a\tb", .controlCharacter),
            ("/0/a%", .badPercentEncoding), ("/0/a%2", .badPercentEncoding), ("/0/a%zz", .badPercentEncoding),
            ("/0/%c0%ae%c0%ae", .invalidUTF8), ("/0/%ff", .invalidUTF8),
            ("/2/x", .unknownRoot), ("/00/x", .unknownRoot), ("/-1/x", .unknownRoot), ("/a/x", .unknownRoot),
            ("/99999999999999999999/x", .unknownRoot),
            ("/0/" + String(repeating: "a", count: 256), .tooLong),
            ("/0/" + String(repeating: "a/", count: 70) + "x", .tooLong),
            ("/0/" + String(repeating: "a", count: 5000), .tooLong),
        ]
        for (target, expected) in cases {
            XCTAssertEqual(parse(target), .failure(expected), target)
        }
        XCTAssertEqual(MediaRequestPath.parse([0x2F, 0x30, 0x2F, 0x61, 0x00, 0x62], rootCount: 1), .failure(.nul))
    }

    func testStatuses() {
        XCTAssertEqual(MediaRequestPath.Rejection.traversal.status, 403)
        XCTAssertEqual(MediaRequestPath.Rejection.nul.status, 400)
        XCTAssertEqual(MediaRequestPath.Rejection.tooLong.status, 414)
        XCTAssertEqual(MediaRequestPath.Rejection.unknownRoot.status, 404)
    }

    func testTargetsRoundTrip() {
        let names = ["plain.mp4", "with space.mp4", "ä ö ü.mkv", "100% real.mp4", "a+b&c=d?.mp4", "日本語.mp4", "x~y-z_.vtt"]
        for name in names {
            let path = MediaRequestPath(rootIndex: 1, components: ["Dir One", name])
            XCTAssertEqual(parse(path.target), .success(path), path.target)
        }
        XCTAssertEqual(MediaRequestPath.percentEncode("a b/ä%"), "a%20b%2F%C3%A4%25")
        XCTAssertTrue(MediaRequestPath.isServableComponent("video.mp4"))
        XCTAssertFalse(MediaRequestPath.isServableComponent(".."))
        XCTAssertFalse(MediaRequestPath.isServableComponent(".profile"))
        XCTAssertFalse(MediaRequestPath.isServableComponent("a\u{1}b"))
    }
}
