import MediaServer
import XCTest

/// Ranges, validators and CORS decisions without a socket.
final class MediaResponsePlannerTests: XCTestCase {
    let file = FileMetadata(size: 1000, modifiedSeconds: 1_700_000_000, modifiedNanoseconds: 5, inode: 42)
    let planner = MediaResponsePlanner(corsOrigin: "*")

    private func plan(_ range: String? = nil, ifRange: String? = nil, ifNoneMatch: String? = nil,
                      ifModifiedSince: String? = nil) -> MediaResponsePlanner.Plan {
        planner.plan(HTTPRequest(method: "GET", target: "/0/x.mp4", range: range, ifRange: ifRange,
                                 ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince),
                     file: file, contentType: "video/mp4")
    }

    func testRangeParsing() {
        XCTAssertEqual(ByteRangeRequest.parse(nil, size: 1000), .whole)
        XCTAssertEqual(ByteRangeRequest.parse("bytes=0-99", size: 1000), .partial(offset: 0, length: 100))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=990-", size: 1000), .partial(offset: 990, length: 10))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=-10", size: 1000), .partial(offset: 990, length: 10))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=-5000", size: 1000), .partial(offset: 0, length: 1000))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=500-5000", size: 1000), .partial(offset: 500, length: 500))
        XCTAssertEqual(ByteRangeRequest.parse(" Bytes=1- 2 ", size: 1000), .partial(offset: 1, length: 2))
        XCTAssertEqual(ByteRangeRequest.parse("bytes=1000-", size: 1000), .unsatisfiable)
        XCTAssertEqual(ByteRangeRequest.parse("bytes=-0", size: 1000), .unsatisfiable)
        XCTAssertEqual(ByteRangeRequest.parse("bytes=0-", size: 0), .unsatisfiable)
        // Ignored (served whole): other units, several ranges, nonsense, overflow.
        for header in ["items=0-1", "bytes=0-1,3-4", "bytes=5-1", "bytes=a-b", "bytes=-", "bytes=0-99999999999999999999999", "bytes"] {
            XCTAssertEqual(ByteRangeRequest.parse(header, size: 1000), .whole, header)
        }
    }

    func testWholeAndPartialAnswers() {
        let whole = plan()
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.bytes?.length, 1000)
        XCTAssertEqual(whole.headers["Content-Type"], "video/mp4")
        XCTAssertEqual(whole.headers["Accept-Ranges"], "bytes")
        XCTAssertEqual(whole.headers["Access-Control-Allow-Origin"], "*")
        XCTAssertEqual(whole.headers["Last-Modified"], "Tue, 14 Nov 2023 22:13:20 GMT")

        let partial = plan("bytes=10-19")
        XCTAssertEqual(partial.status, 206)
        XCTAssertEqual(partial.headers["Content-Range"], "bytes 10-19/1000")
        XCTAssertEqual(partial.bytes?.offset, 10)
        XCTAssertEqual(partial.bytes?.length, 10)

        let unsatisfiable = plan("bytes=2000-")
        XCTAssertEqual(unsatisfiable.status, 416)
        XCTAssertEqual(unsatisfiable.headers["Content-Range"], "bytes */1000")
        XCTAssertNil(unsatisfiable.bytes)
    }

    func testConditions() {
        let etag = file.entityTag
        XCTAssertEqual(plan(ifNoneMatch: etag).status, 304)
        XCTAssertNil(plan(ifNoneMatch: etag).bytes)
        XCTAssertEqual(plan(ifNoneMatch: "*").status, 304)
        XCTAssertEqual(plan(ifNoneMatch: "\"a\", W/\(etag)").status, 304)
        XCTAssertEqual(plan(ifNoneMatch: "\"a\"").status, 200)
        // If-None-Match takes precedence over If-Modified-Since.
        XCTAssertEqual(plan(ifNoneMatch: "\"a\"", ifModifiedSince: file.lastModified).status, 200)
        XCTAssertEqual(plan(ifModifiedSince: file.lastModified).status, 304)
        XCTAssertEqual(plan(ifModifiedSince: "Wed, 01 Jan 2025 00:00:00 GMT").status, 304)
        XCTAssertEqual(plan(ifModifiedSince: "Sat, 01 Jan 2000 00:00:00 GMT").status, 200)
        XCTAssertEqual(plan(ifModifiedSince: "yesterday").status, 200)

        XCTAssertEqual(plan("bytes=0-9", ifRange: etag).status, 206)
        XCTAssertEqual(plan("bytes=0-9", ifRange: "W/\(etag)").status, 200, "If-Range needs a strong match")
        XCTAssertEqual(plan("bytes=0-9", ifRange: "\"old\"").status, 200)
        XCTAssertEqual(plan("bytes=0-9", ifRange: file.lastModified).status, 206)
        XCTAssertEqual(plan("bytes=0-9", ifRange: "Sat, 01 Jan 2000 00:00:00 GMT").status, 200)

        let ifMatch = planner.plan(HTTPRequest(method: "GET", target: Array("/0/x".utf8), ifMatch: "\"old\""),
                                   file: file, contentType: "video/mp4")
        XCTAssertEqual(ifMatch.status, 412)
    }

    func testEntityTagChangesWithTheFile() {
        var changed = file
        changed.modifiedNanoseconds += 1
        XCTAssertNotEqual(changed.entityTag, file.entityTag)
        changed = file
        changed.size += 1
        XCTAssertNotEqual(changed.entityTag, file.entityTag)
        XCTAssertTrue(file.entityTag.hasPrefix("\"") && file.entityTag.hasSuffix("\""))
    }

    func testHTTPDates() {
        XCTAssertEqual(HTTPDate.format(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), 784_111_777)
        XCTAssertEqual(HTTPDate.parse(HTTPDate.format(1_700_000_000)), 1_700_000_000)
        for bad in ["", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 25:49:37 GMT",
                    "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC"] {
            XCTAssertNil(HTTPDate.parse(bad), bad)
        }
    }

    func testContentTypes() {
        XCTAssertEqual(MediaContentType.forFile("a.MP4"), "video/mp4")
        XCTAssertEqual(MediaContentType.forFile("a.vtt"), "text/vtt")
        XCTAssertEqual(MediaContentType.forFile("a.m3u8"), "application/vnd.apple.mpegurl")
        XCTAssertEqual(MediaContentType.forFile("a.ts"), "video/mp2t")
        XCTAssertEqual(MediaContentType.forFile("noext"), MediaContentType.fallback)
        XCTAssertEqual(MediaContentType.forFile(".mp4"), MediaContentType.fallback)
    }

    func testHandlerRefusesOtherMethodsAndAnswersPreflight() {
        let handler = MediaRequestHandler(roots: MediaRoots(resolvedPaths: ["/nonexistent-root"]), corsOrigin: "*")
        let put = handler.respond(to: HTTPRequest(method: "PUT", target: "/0/x.mp4"))
        XCTAssertEqual(put.status, 405)
        XCTAssertEqual(put.header("allow"), "GET, HEAD, OPTIONS")
        let options = handler.respond(to: HTTPRequest(method: "OPTIONS", target: "/0/x.mp4"))
        XCTAssertEqual(options.status, 204)
        XCTAssertEqual(options.header("Access-Control-Allow-Headers"), "Content-Type, Accept-Encoding, Range")
        let traversal = handler.respond(to: HTTPRequest(method: "GET", target: "/0/../etc/passwd"))
        XCTAssertEqual(traversal.status, 403)
        XCTAssertEqual(traversal.header("Access-Control-Allow-Origin"), "*")
    }
}
