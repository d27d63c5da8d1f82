import CastProtocol
import ReceiverSimulator
import Synchronization
import XCTest

/// The mvhd parser (bytes from the network) and the fetch decisions, with a
/// fake probe at the MediaProbe seam.
final class MP4DurationTests: XCTestCase {
    private func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(payload.count + 8)) + Array(type.utf8) + payload
    }

    private func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    private func be64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    private func mvhd(version: UInt8, timescale: UInt32, duration: UInt64) -> [UInt8] {
        var payload: [UInt8] = [version, 0, 0, 0]
        if version == 1 {
            payload += be64(0) + be64(0) + be32(timescale) + be64(duration)
        } else {
            payload += be32(0) + be32(0) + be32(timescale) + be32(UInt32(duration))
        }
        payload += [UInt8](repeating: 0, count: 80)  // rate, volume, matrix, next track id
        return box("mvhd", payload)
    }

    private let ftyp: [UInt8] = [0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8)

    func testVersion0AndVersion1() {
        let v0 = ftyp + box("moov", mvhd(version: 0, timescale: 1000, duration: 3500) + box("trak", []))
        XCTAssertEqual(MP4Duration.scan(v0), .duration(3.5))
        let v1 = ftyp + box("moov", mvhd(version: 1, timescale: 90000, duration: 90000 * 7200))
        XCTAssertEqual(MP4Duration.scan(v1), .duration(7200))
    }

    func testMoovAfterMediaDataAsksForMoreBytes() {
        // mdat of 1 MB announced, only its start fetched: continue after it.
        let start = ftyp + be32(1_000_008) + Array("mdat".utf8) + [UInt8](repeating: 0, count: 100)
        XCTAssertEqual(MP4Duration.scan(start, fileSize: 2_000_000), .continueAt(24 + 1_000_008))
        // 64-bit box size.
        let large = ftyp + be32(1) + Array("mdat".utf8) + be64(5_000_000_000) + [0, 0]
        XCTAssertEqual(MP4Duration.scan(large), .continueAt(24 + 5_000_000_000))
        // Reading there finds moov.
        let tail = box("moov", mvhd(version: 0, timescale: 600, duration: 6000))
        XCTAssertEqual(MP4Duration.scan(tail, at: 1_000_032), .duration(10))
        // Past the end of the file: nothing to fetch.
        XCTAssertEqual(MP4Duration.scan(start, fileSize: 500_000), .none)
    }

    func testUnusableInputs() {
        XCTAssertEqual(MP4Duration.scan(Array("WEBVTT\n\n00:00.000 --> 00:01.000".utf8)), .none)
        XCTAssertEqual(MP4Duration.scan([0x1A, 0x45, 0xDF, 0xA3, 0, 0, 0, 0, 0]), .none)  // Matroska
        XCTAssertEqual(MP4Duration.scan(ftyp + box("moov", mvhd(version: 0, timescale: 0, duration: 10))), .none)
        XCTAssertEqual(MP4Duration.scan(ftyp + box("moov", mvhd(version: 0, timescale: 1000, duration: 0xFFFF_FFFF))), .none)
        XCTAssertEqual(MP4Duration.scan(ftyp + box("moov", mvhd(version: 7, timescale: 1000, duration: 1))), .none)
        XCTAssertEqual(MP4Duration.scan([0, 0, 0, 4] + Array("ftyp".utf8)), .none)  // size below its header
        // Random bytes never trap.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let count = Int.random(in: 0..<200, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count > 8, Bool.random() { bytes.replaceSubrange(4..<8, with: Array("moov".utf8)) }
            _ = MP4Duration.scan(bytes, at: UInt64.random(in: 0...UInt64.max), fileSize: Bool.random() ? nil : 1000)
        }
    }

    func testFetchDecisionsWithAFakeProbe() async {
        let movie = ftyp + box("moov", mvhd(version: 0, timescale: 1000, duration: 42_000))
        let probe = FakeProbe(headers: ["Access-Control-Allow-Origin": "*"], body: movie)
        let media = MediaInformation(contentID: "http://box/movie.mp4", contentType: "video/mp4")
        let played = await MediaFetch.fetch(media, probe: probe)
        XCTAssertEqual(played, .playable(duration: 42))
        XCTAssertEqual(probe.requests, ["HEAD http://box/movie.mp4 origin=-", "GET http://box/movie.mp4 0-65535 origin=-"])

        let tracks = MediaInformation(contentID: "http://box/movie.mp4", contentType: "video/mp4",
                                      tracks: [MediaTrack(trackID: 1, kind: .text)])
        let noCORS = FakeProbe(headers: [:], body: movie)
        guard case .failed(.mediaSourceNotSupported, _) = await MediaFetch.fetch(tracks, probe: noCORS) else {
            return XCTFail("missing CORS with text tracks must fail")
        }
        XCTAssertEqual(noCORS.requests, ["HEAD http://box/movie.mp4 origin=https://www.gstatic.com"])
        let otherOrigin = FakeProbe(headers: ["Access-Control-Allow-Origin": "https://elsewhere.example"], body: movie)
        guard case .failed = await MediaFetch.fetch(tracks, probe: otherOrigin) else { return XCTFail("wrong origin must fail") }

        let notFound = FakeProbe(status: 404, headers: [:], body: [])
        guard case .failed(.mediaSourceNotSupported, _) = await MediaFetch.fetch(media, probe: notFound) else {
            return XCTFail("404 must fail")
        }
        let down = FakeProbe(error: ProbeError("connection refused"))
        guard case .failed(.mediaSourceNotSupported, _) = await MediaFetch.fetch(media, probe: down) else {
            return XCTFail("unreachable must fail")
        }
        let notHTTP = await MediaFetch.fetch(MediaInformation(contentID: "file:///etc/passwd", contentType: "video/mp4"),
                                             probe: probe)
        guard case .failed = notHTTP else { return XCTFail("only http(s) URLs") }

        let webm = FakeProbe(headers: [:], body: [0x1A, 0x45, 0xDF, 0xA3])
        let other = await MediaFetch.fetch(MediaInformation(contentID: "http://box/a.webm", contentType: "video/webm"), probe: webm)
        XCTAssertEqual(other, .playable(duration: nil))
    }
}

/// Answers every request with the same response (ranges cut from `body`),
/// and records what was asked.
final class FakeProbe: MediaProbe {
    private let status: Int
    private let headers: [String: String]
    private let body: [UInt8]
    private let error: ProbeError?
    private let log = Mutex<[String]>([])

    init(status: Int = 200, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
        error = nil
    }

    init(error: ProbeError) {
        status = 0
        headers = [:]
        body = []
        self.error = error
    }

    var requests: [String] { log.withLock { $0 } }

    func head(_ url: String, origin: String?) async throws -> ProbeResponse {
        log.withLock { $0.append("HEAD \(url) origin=\(origin ?? "-")") }
        if let error { throw error }
        return ProbeResponse(status: status, headers: headers.merging(["Content-Length": "\(body.count)"]) { $1 })
    }

    func get(_ url: String, range: ClosedRange<UInt64>, origin: String?) async throws -> ProbeResponse {
        log.withLock { $0.append("GET \(url) \(range.lowerBound)-\(range.upperBound) origin=\(origin ?? "-")") }
        if let error { throw error }
        guard status == 200 else { return ProbeResponse(status: status, headers: headers) }
        let start = Int(min(range.lowerBound, UInt64(body.count)))
        let end = Int(min(range.upperBound + 1, UInt64(body.count)))
        return ProbeResponse(status: 206, headers: headers.merging(["Content-Range": "bytes \(start)-\(end - 1)/\(body.count)"]) { $1 },
                             body: Array(body[start..<end]))
    }
}
