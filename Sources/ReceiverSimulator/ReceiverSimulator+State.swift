#if canImport(Glibc)
import Glibc
#endif
import CastProtocol
import JSON
import SystemSupport

/// With `--state FILE` the simulator keeps its running app and player across
/// a restart, like a real receiver whose app keeps playing while its network
/// connection to senders is cut. Used to test that senders rejoin instead of
/// relaunching.
extension ReceiverSimulator {
    var stateSnapshot: JSONValue {
        var object: JSONObject = ["volume": volume.json]
        if let app {
            object["app"] = app.application.json
            object["supportedAppTypes"] = .array(app.supportedAppTypes.map { .string($0) })
        }
        if let media {
            object["media"] = [
                "mediaSessionId": .int(media.mediaSessionID),
                "items": .array(media.items.map(\.json)),
                "currentIndex": .int(media.currentIndex),
                "playerState": .string(media.playerState.wireName),
                "position": .number(media.position(at: now)),
                "activeTrackIds": .array(media.activeTrackIDs.map { .int($0) }),
                "nextItemId": .int(media.nextItemID),
            ]
        }
        return .object(object)
    }

    /// Writes the snapshot (atomically, via rename) when a state file is configured.
    func persistState() {
        guard let path = configuration.statePath else { return }
        let temporary = path + ".tmp"
        guard let file = fopen(temporary, "w") else {
            logger.warning(SystemError.current("write state \(temporary)").description)
            return
        }
        fputs(stateSnapshot.serialized, file)
        fclose(file)
        rename(temporary, path)
    }

    /// Restores a snapshot written by `persistState` (a missing file is a fresh start).
    func restoreState() {
        guard let path = configuration.statePath, let text = try? FileSystem.readText(path),
              let json = try? JSONValue(parsing: text) else { return }
        volume = CastVolume(json: json["volume"])
        if let application = json["app"].flatMap(ReceiverApplication.init(json:)) {
            app = RunningApp(application: application,
                             supportedAppTypes: json["supportedAppTypes"]?.arrayValue?.compactMap(\.stringValue) ?? ["WEB"])
        }
        if let saved = json["media"], let sessionID = saved["mediaSessionId"]?.intValue {
            let items = saved["items"]?.arrayValue?.compactMap(QueueItem.init(json:)) ?? []
            media = SimulatedMediaSession(
                mediaSessionID: sessionID, items: items, currentIndex: saved["currentIndex"]?.intValue ?? 0,
                playerState: PlayerState(wireName: saved["playerState"]?.stringValue ?? "IDLE"),
                activeTrackIDs: saved["activeTrackIds"]?.arrayValue?.compactMap(\.intValue) ?? [],
                anchorPosition: saved["position"]?.doubleValue ?? 0, anchorTime: now,
                nextItemID: saved["nextItemId"]?.intValue ?? items.count + 1,
                defaultDuration: configuration.defaultDuration)
            nextMediaSessionID = sessionID + 1
        }
        logger.info("restored state from \(path): app \(app?.application.appID ?? "none")")
    }
}
