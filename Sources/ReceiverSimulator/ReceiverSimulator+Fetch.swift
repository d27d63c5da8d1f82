import CastProtocol
import JSON

/// `--fetch-media`: LOAD fetches the media first (MediaFetch) and fails with
/// the receiver's LOAD_FAILED shape when a real receiver could not play it;
/// otherwise the player starts with the file's real duration.
extension ReceiverSimulator {
    func fetchThenLoad(_ info: MediaInformation, request json: JSONValue, message: CastMessage, on connection: Connection,
                       probe: any MediaProbe) {
        let requestID = json["requestId"]?.intValue ?? 0
        let transportID = app?.application.transportID
        Task {
            let outcome = await MediaFetch.fetch(info, probe: probe)
            // The sender or the app may have gone while the player fetched.
            guard self.connections[connection.id] != nil, let transportID, self.app?.application.transportID == transportID else {
                return
            }
            switch outcome {
            case .failed(let code, let reason):
                self.logger.info("LOAD failed (detailedErrorCode \(code.rawValue)): \(reason)")
                // itemId: the item this LOAD would have created (a LOAD starts a new queue at 1).
                self.send(message.reply(json: ["type": "LOAD_FAILED", "requestId": .int(requestID),
                                               "detailedErrorCode": .int(code.rawValue), "itemId": 1]), on: connection)
            case .playable(let duration):
                var media = info
                if let duration { media.duration = duration }
                let item = QueueItem(media: media, autoplay: json["autoplay"]?.boolValue ?? true,
                                     startTime: json["currentTime"]?.doubleValue)
                self.startSession([item], startIndex: 0,
                                  activeTrackIDs: json["activeTrackIds"]?.arrayValue?.compactMap(\.intValue) ?? [])
                let entries = self.media.map { [$0.status(at: self.now, includeMedia: true)] } ?? []
                self.reply(MediaStatus.message(entries, requestID: requestID), to: message, on: connection,
                           broadcastFrom: transportID)
                self.schedulePlaybackEnd()
                self.persistState()
            }
        }
    }
}
