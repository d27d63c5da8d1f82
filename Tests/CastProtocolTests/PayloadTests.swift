import JSON
import XCTest
@testable import CastProtocol

final class PayloadTests: XCTestCase {
    func testLaunchForWebReceiverOnly() {
        let json = ReceiverRequest.launch(LaunchRequest(appID: "CC1AD845")).json(requestID: 7)
        XCTAssertEqual(json.serialized,
                       #"{"type":"LAUNCH","requestId":7,"appId":"CC1AD845","language":"en-US","supportedAppTypes":["WEB"]}"#)
    }

    func testLaunchAllowingAndroidReceiverWithCredentials() {
        let request = LaunchRequest(appID: "ABCD1234", allowsAndroidReceiver: true,
                                    credentials: LaunchCredentials(credentials: "token-1", credentialsType: "android"))
        XCTAssertEqual(ReceiverRequest.launch(request).json(requestID: 2).serialized,
                       #"{"type":"LAUNCH","requestId":2,"appId":"ABCD1234","language":"en-US","supportedAppTypes":["WEB","ANDROID_TV"],"credentialsData":{"credentials":"token-1","credentialsType":"android"}}"#)
        XCTAssertFalse("\(request.credentials!)".contains("token-1"))
    }

    func testVolumeLevelAndMuteAreSeparateAndClamped() {
        XCTAssertEqual(ReceiverRequest.setVolumeLevel(1.7).json(requestID: 1).serialized,
                       #"{"type":"SET_VOLUME","requestId":1,"volume":{"level":1}}"#)
        XCTAssertEqual(ReceiverRequest.setVolumeLevel(-1).json(requestID: 1)["volume"]?["level"], 0)
        XCTAssertEqual(ReceiverRequest.setMuted(true).json(requestID: 3).serialized,
                       #"{"type":"SET_VOLUME","requestId":3,"volume":{"muted":true}}"#)
    }

    func testLoadCarriesMediaTracksStyleAndCredentials() {
        let media = MediaInformation(
            contentID: "http://h/v.mp4", contentURL: "http://h/v.mp4", contentType: "video/mp4",
            metadata: MediaMetadata(title: "T", subtitle: "S", imageURLs: ["http://h/i.jpg"]),
            tracks: [MediaTrack(trackID: 1, kind: .text, subtype: "SUBTITLES", contentID: "http://h/en.vtt",
                                contentType: "text/vtt", name: "English", language: "en")],
            textTrackStyle: TextTrackStyle(backgroundColor: "#00000080", edgeType: "OUTLINE", fontScale: 1.2))
        let json = MediaRequest.load(LoadRequest(media: media, currentTime: 12, activeTrackIDs: [1], credentials: "c", credentialsType: "t"),
                                     sessionID: "sess").json(requestID: 4)
        XCTAssertEqual(json.serialized, """
            {"type":"LOAD","requestId":4,"sessionId":"sess","media":{"contentId":"http://h/v.mp4","contentUrl":"http://h/v.mp4",\
            "streamType":"BUFFERED","contentType":"video/mp4","metadata":{"metadataType":0,"title":"T","subtitle":"S",\
            "images":[{"url":"http://h/i.jpg"}]},"tracks":[{"trackId":1,"type":"TEXT","subtype":"SUBTITLES",\
            "trackContentId":"http://h/en.vtt","trackContentType":"text/vtt","name":"English","language":"en"}],\
            "textTrackStyle":{"backgroundColor":"#00000080","edgeType":"OUTLINE","fontScale":1.2}},"autoplay":true,\
            "currentTime":12,"activeTrackIds":[1],"credentials":"c","credentialsType":"t"}
            """)
    }

    func testMediaCommandsAndTheirRequiredCapabilities() {
        XCTAssertEqual(MediaRequest.seek(mediaSessionID: 3, position: 42, resumeState: .playbackPause).json(requestID: 9).serialized,
                       #"{"type":"SEEK","requestId":9,"mediaSessionId":3,"currentTime":42,"resumeState":"PLAYBACK_PAUSE"}"#)
        XCTAssertEqual(MediaRequest.queueJump(mediaSessionID: 3, by: -1).json(requestID: 1).serialized,
                       #"{"type":"QUEUE_UPDATE","requestId":1,"mediaSessionId":3,"jump":-1}"#)
        XCTAssertEqual(MediaRequest.editTracks(mediaSessionID: 3, activeTrackIDs: [], textTrackStyle: nil).json(requestID: 1).serialized,
                       #"{"type":"EDIT_TRACKS_INFO","requestId":1,"mediaSessionId":3,"activeTrackIds":[]}"#)
        XCTAssertEqual(MediaRequest.pause(mediaSessionID: 1).requiredCommand, .pause)
        XCTAssertEqual(MediaRequest.queueJump(mediaSessionID: 1, by: 1).requiredCommand, .queueNext)
        XCTAssertEqual(MediaRequest.queueJump(mediaSessionID: 1, by: -1).requiredCommand, .queuePrevious)
        XCTAssertEqual(MediaRequest.setStreamVolume(mediaSessionID: 1, level: nil, muted: true).requiredCommand, .streamMute)
        XCTAssertNil(MediaRequest.play(mediaSessionID: 1).requiredCommand)
        XCTAssertNil(MediaRequest.stop(mediaSessionID: 1).requiredCommand)
    }

    /// A RECEIVER_STATUS as a real device sends it, with fields this code does not use.
    func testParsesRealisticReceiverStatus() throws {
        let json = try JSONValue(parsing: """
            {"requestId":1,"status":{"applications":[{"appId":"CC1AD845","appType":"WEB","displayName":"Default Media Receiver",\
            "iconUrl":"","isIdleScreen":false,"launchedFromCloud":false,"namespaces":[{"name":"urn:x-cast:com.google.cast.cac"},\
            {"name":"urn:x-cast:com.google.cast.media"}],"sessionId":"7E2FF513","statusText":"Default Media Receiver",\
            "transportId":"7E2FF513","universalAppId":"CC1AD845"}],"isActiveInput":true,"isStandBy":false,"userEq":{},\
            "volume":{"controlType":"attenuation","level":0.3,"muted":false,"stepInterval":0.05}},"type":"RECEIVER_STATUS"}
            """)
        let status = ReceiverStatus(message: json)
        XCTAssertEqual(status.volume, CastVolume(level: 0.3, muted: false, controlType: "attenuation", stepInterval: 0.05))
        XCTAssertEqual(status.activeApplication?.transportID, "7E2FF513")
        XCTAssertTrue(status.activeApplication?.supportsMedia ?? false)
        XCTAssertEqual(CastReply(json: json).requestID, 1)
    }

    func testIdleScreenIsNotAnActiveApplication() {
        let status = ReceiverStatus(message: ["type": "RECEIVER_STATUS", "requestId": 0, "status": [
            "applications": [["appId": "E8C28D3C", "isIdleScreen": true, "sessionId": "x", "transportId": "x"]],
        ]])
        XCTAssertNil(status.activeApplication)
        XCTAssertNil(CastReply(json: status.message(requestID: 0)).requestID, "broadcasts carry request id 0")
    }

    func testMediaStatusToleratesUnknownFieldsAndSkipsBrokenEntries() throws {
        let json = try JSONValue(parsing: """
            {"type":"MEDIA_STATUS","requestId":0,"status":[{"mediaSessionId":7,"playbackRate":1,"playerState":"PLAYING",\
            "currentTime":61.5,"supportedMediaCommands":274447,"volume":{"level":1,"muted":false},"activeTrackIds":[2],\
            "currentItemId":7,"repeatMode":"REPEAT_OFF","extendedStatus":{"playerState":"LOADING"},"newThing":[1,2],\
            "media":{"contentId":"x","streamType":"BUFFERED","contentType":"video/mp4","duration":596.5,\
            "tracks":[{"trackId":2,"type":"TEXT"},{"trackId":"bad"}]}},{"playerState":"IDLE"}]}
            """)
        let entries = MediaStatus.entries(message: json)
        XCTAssertEqual(entries.count, 1)
        let status = entries[0]
        XCTAssertEqual(status.playerState, .playing)
        XCTAssertEqual(status.currentTime, 61.5)
        XCTAssertTrue(status.supportedCommands.contains([.pause, .seek, .editTracks]))
        XCTAssertFalse(status.supportedCommands.contains(.queueNext))
        XCTAssertEqual(status.media?.duration, 596.5)
        XCTAssertEqual(status.media?.tracks.map(\.trackID), [2])
        XCTAssertEqual(PlayerState(wireName: "SOMETHING_NEW"), .other("SOMETHING_NEW"))
    }

    func testReplyEnvelopeUsesLaunchRequestIdAndResponseType() {
        XCTAssertEqual(CastReply(json: ["type": "LAUNCH_STATUS", "launchRequestId": 5]).requestID, 5)
        let availability = CastReply(json: ["responseType": "GET_APP_AVAILABILITY", "requestId": 2])
        XCTAssertEqual(availability.type, "GET_APP_AVAILABILITY")
        XCTAssertEqual(availability.requestID, 2)
    }
}
