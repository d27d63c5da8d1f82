import Foundation
import MediaServer
import XCTest

/// The server against a real HTTP client (curl) on 127.0.0.1.
final class MediaServerHTTPTests: XCTestCase {
    func testGetServesTheWholeFileWithTypeValidatorsAndCORS() async throws {
        let fixture = try await MediaFixture(test: self)
        let response = try curl(fixture.url("/0/video.mp4"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, fixture.video)
        XCTAssertEqual(response.headers["content-type"], "video/mp4")
        XCTAssertEqual(response.headers["content-length"], "200000")
        XCTAssertEqual(response.headers["accept-ranges"], "bytes")
        XCTAssertNotNil(response.headers["etag"])
        XCTAssertNotNil(response.headers["last-modified"].flatMap(HTTPDate.parse))
        XCTAssertEqual(response.headers["access-control-allow-origin"], "*")
        let exposed = response.headers["access-control-expose-headers"] ?? ""
        XCTAssertTrue(exposed.contains("Content-Length") && exposed.contains("Content-Range"), exposed)
    }

    func testHeadSendsTheHeadersWithoutABody() async throws {
        let fixture = try await MediaFixture(test: self)
        let response = try curl(fixture.url("/0/video.mp4"), method: "HEAD")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["content-length"], "200000")
        XCTAssertEqual(response.headers["content-type"], "video/mp4")
        // On the wire: the head, then nothing before the server closes.
        let raw = try rawHTTP(port: fixture.port, Array("HEAD \(fixture.server.urlPrefix)/0/video.mp4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        XCTAssertEqual(statusCode(of: raw), 200)
        let text = String(decoding: raw, as: UTF8.self)
        XCTAssertTrue(text.hasSuffix("\r\n\r\n"), "bytes after the head: \(raw.count)")
        XCTAssertTrue(text.contains("Content-Length: 200000"), text)
    }

    func testRanges() async throws {
        let fixture = try await MediaFixture(test: self)
        let url = fixture.url("/0/video.mp4")

        let first = try curl(url, headers: ["Range: bytes=0-65535"])
        XCTAssertEqual(first.status, 206)
        XCTAssertEqual(first.headers["content-range"], "bytes 0-65535/200000")
        XCTAssertEqual(first.body, Array(fixture.video[0...65535]))

        let middle = try curl(url, headers: ["Range: bytes=1000-1999"])
        XCTAssertEqual(middle.status, 206)
        XCTAssertEqual(middle.body, Array(fixture.video[1000...1999]))

        let suffix = try curl(url, headers: ["Range: bytes=-500"])
        XCTAssertEqual(suffix.status, 206)
        XCTAssertEqual(suffix.headers["content-range"], "bytes 199500-199999/200000")
        XCTAssertEqual(suffix.body, Array(fixture.video[199_500...]))

        let open = try curl(url, headers: ["Range: bytes=150000-"])
        XCTAssertEqual(open.status, 206)
        XCTAssertEqual(open.headers["content-length"], "50000")
        XCTAssertEqual(open.body, Array(fixture.video[150_000...]))

        let pastEnd = try curl(url, headers: ["Range: bytes=199990-300000"])
        XCTAssertEqual(pastEnd.status, 206)
        XCTAssertEqual(pastEnd.headers["content-range"], "bytes 199990-199999/200000")

        let unsatisfiable = try curl(url, headers: ["Range: bytes=200000-"])
        XCTAssertEqual(unsatisfiable.status, 416)
        XCTAssertEqual(unsatisfiable.headers["content-range"], "bytes */200000")
        XCTAssertTrue(unsatisfiable.body.isEmpty)

        let headRange = try curl(url, method: "HEAD", headers: ["Range: bytes=0-99"])
        XCTAssertEqual(headRange.status, 206)
        XCTAssertEqual(headRange.headers["content-length"], "100")

        // Several ranges are allowed to be answered with the whole file.
        let multiple = try curl(url, headers: ["Range: bytes=0-1,5-6"])
        XCTAssertEqual(multiple.status, 200)
        XCTAssertEqual(multiple.body.count, 200_000)
    }

    func testConditionalRequests() async throws {
        let fixture = try await MediaFixture(test: self)
        let url = fixture.url("/0/video.mp4")
        let first = try curl(url, method: "HEAD")
        let etag = try XCTUnwrap(first.headers["etag"])
        let lastModified = try XCTUnwrap(first.headers["last-modified"])

        let byTag = try curl(url, headers: ["If-None-Match: \(etag)"])
        XCTAssertEqual(byTag.status, 304)
        XCTAssertTrue(byTag.body.isEmpty)
        XCTAssertEqual(byTag.headers["etag"], etag)

        let byWeakTag = try curl(url, headers: ["If-None-Match: \"other\", W/\(etag)"])
        XCTAssertEqual(byWeakTag.status, 304)

        let otherTag = try curl(url, headers: ["If-None-Match: \"other\""])
        XCTAssertEqual(otherTag.status, 200)
        XCTAssertEqual(otherTag.body.count, 200_000)

        let byDate = try curl(url, headers: ["If-Modified-Since: \(lastModified)"])
        XCTAssertEqual(byDate.status, 304)
        let olderDate = try curl(url, headers: ["If-Modified-Since: Sat, 01 Jan 2000 00:00:00 GMT"])
        XCTAssertEqual(olderDate.status, 200)

        // If-Range: the range only while the file is unchanged.
        let rangeSameTag = try curl(url, headers: ["Range: bytes=0-9", "If-Range: \(etag)"])
        XCTAssertEqual(rangeSameTag.status, 206)
        XCTAssertEqual(rangeSameTag.body.count, 10)
        let rangeOldTag = try curl(url, headers: ["Range: bytes=0-9", "If-Range: \"stale\""])
        XCTAssertEqual(rangeOldTag.status, 200)
        XCTAssertEqual(rangeOldTag.body.count, 200_000)
        let rangeSameDate = try curl(url, headers: ["Range: bytes=0-9", "If-Range: \(lastModified)"])
        XCTAssertEqual(rangeSameDate.status, 206)

        // A rewritten file gets a new tag.
        try Data(fixture.video.reversed()).write(to: fixture.root.appendingPathComponent("video.mp4"))
        let changed = try curl(url, headers: ["If-None-Match: \(etag)"])
        XCTAssertEqual(changed.status, 200)
        XCTAssertNotEqual(changed.headers["etag"], etag)
    }

    func testPreflightAndCORSOnEveryAnswer() async throws {
        let fixture = try await MediaFixture(test: self)
        let preflight = try curl(fixture.url("/0/video.vtt"), method: "OPTIONS", headers: [
            "Origin: https://www.gstatic.com", "Access-Control-Request-Method: GET",
            "Access-Control-Request-Headers: range",
        ])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.headers["access-control-allow-origin"], "*")
        let allowed = preflight.headers["access-control-allow-headers"] ?? ""
        for header in ["Content-Type", "Accept-Encoding", "Range"] {
            XCTAssertTrue(allowed.contains(header), "\(header) missing from \(allowed)")
        }
        XCTAssertTrue((preflight.headers["access-control-allow-methods"] ?? "").contains("GET"))

        let missing = try curl(fixture.url("/0/nothing.mp4"))
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.headers["access-control-allow-origin"], "*")
    }

    func testConfiguredOrigin() async throws {
        let fixture = try await MediaFixture(test: self, corsOrigin: "https://receiver.example.com")
        let response = try curl(fixture.url("/0/video.vtt"), headers: ["Origin: https://receiver.example.com"])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["access-control-allow-origin"], "https://receiver.example.com")
        XCTAssertEqual(response.headers["content-type"], "text/vtt")
    }

    func testContentTypes() async throws {
        let fixture = try await MediaFixture(test: self)
        let expected = [
            "webm": "video/webm", "mkv": "video/x-matroska", "mp3": "audio/mpeg", "aac": "audio/aac",
            "m4a": "audio/mp4", "flac": "audio/flac", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png",
            "m3u8": "application/vnd.apple.mpegurl", "ts": "video/mp2t", "bin": "application/octet-stream",
        ]
        for (ext, type) in expected {
            let response = try curl(fixture.url("/0/sample.\(ext)"), method: "HEAD")
            XCTAssertEqual(response.status, 200, ext)
            XCTAssertEqual(response.headers["content-type"], type, ext)
        }
    }

    func testReadOnly() async throws {
        let fixture = try await MediaFixture(test: self)
        for method in ["POST", "PUT", "DELETE", "PATCH"] {
            let response = try curl(fixture.url("/0/video.mp4"), method: method, extra: ["--data-binary", "overwrite"])
            XCTAssertEqual(response.status, 405, method)
            XCTAssertEqual(response.headers["allow"], "GET, HEAD, OPTIONS", method)
        }
        let unchanged = try Data(contentsOf: fixture.root.appendingPathComponent("video.mp4"))
        XCTAssertEqual([UInt8](unchanged), fixture.video)
    }

    func testURLsForLocalFilesAreEncodedAndServed() async throws {
        let fixture = try await MediaFixture(test: self)
        let local = fixture.root.appendingPathComponent("Movies/Sub Dir/ä b+c.mkv").path
        let url = try fixture.server.url(forLocalPath: local)
        XCTAssertEqual(url, fixture.url("/0/Movies/Sub%20Dir/%C3%A4%20b%2Bc.mkv"))
        let response = try curl(url)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyText, "x")
        XCTAssertEqual(response.headers["content-type"], "video/x-matroska")

        XCTAssertThrowsError(try fixture.server.url(forLocalPath: fixture.canary.path))
        XCTAssertThrowsError(try fixture.server.url(forLocalPath: fixture.root.appendingPathComponent(".hidden.mp4").path))
        XCTAssertThrowsError(try fixture.server.url(forLocalPath: fixture.root.path))
    }

    func testLocalMediaCarriesSidecarSubtitlesThatAreServed() async throws {
        let fixture = try await MediaFixture(test: self)
        let media = try fixture.server.media(forLocalPath: fixture.root.appendingPathComponent("video.mp4").path)
        XCTAssertEqual(media.contentType, "video/mp4")
        XCTAssertEqual(media.subtitles.map(\.language), [nil, "de"])
        XCTAssertEqual(media.subtitles.map(\.name), ["Subtitles", "German"])
        let track = try XCTUnwrap(media.subtitles.first?.url)
        XCTAssertEqual(track, fixture.url("/0/video.vtt"))
        let response = try curl(track)
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.bodyText.hasPrefix("WEBVTT"))
        XCTAssertEqual(response.headers["access-control-allow-origin"], "*")
    }

    func testNothingIsServedWithoutTheURLToken() async throws {
        let fixture = try await MediaFixture(test: self)
        let token = String(fixture.server.urlPrefix.dropFirst())
        XCTAssertEqual(token.count, 32)
        XCTAssertTrue(token.allSatisfy { $0.isHexDigit }, token)
        let url = try fixture.server.url(forLocalPath: fixture.root.appendingPathComponent("video.mp4").path)
        XCTAssertTrue(url.hasPrefix("http://127.0.0.1:\(fixture.port)/\(token)/0/"), url)
        XCTAssertEqual(try curl(url).status, 200)
        let base = "http://127.0.0.1:\(fixture.port)"
        let wrong = String(token.dropLast()) + (token.last == "0" ? "1" : "0")
        for target in ["/0/video.mp4", "/\(wrong)/0/video.mp4", "/\(token)", "/\(token)0/video.mp4", "/x/\(token)/0/video.mp4", "/"] {
            for method in ["GET", "HEAD", "OPTIONS"] {
                let response = try curl(base + target, method: method)
                XCTAssertEqual(response.status, 404, "\(method) \(target)")
                XCTAssertFalse(response.bodyText.contains("WEBVTT"))
            }
        }
        XCTAssertEqual(try curl(base + "/\(token.uppercased())/0/video.vtt").status, 404, "the token is exact")
    }

    func testListenAgainMovesOnlyWhenTheAddressChanges() async throws {
        let fixture = try await MediaFixture(test: self)
        let same = try await fixture.server.listen(on: "127.0.0.1")
        XCTAssertEqual(same.port, fixture.port, "same address: the daemon keeps running")
        let moved = try await fixture.server.listen(towardReceiver: "127.0.0.2")
        XCTAssertEqual(moved.host, "127.0.0.1", "the route to 127.0.0.2 leaves from 127.0.0.1 on loopback")
        let response = try curl("http://127.0.0.1:\(moved.port)\(fixture.server.urlPrefix)/0/video.vtt")
        XCTAssertEqual(response.status, 200)
        await fixture.server.stop()
        XCTAssertNil(fixture.server.endpoint)
        XCTAssertThrowsError(try fixture.server.url(forLocalPath: fixture.root.appendingPathComponent("video.mp4").path))
        let refused = try runTool("curl", ["-sS", "--max-time", "5", "http://127.0.0.1:\(moved.port)/0/video.vtt"])
        XCTAssertEqual(refused.status, 7, "connection refused after stop")
    }
}
