import GatewayCore
import GatewayModel
import SystemSupport

extension KioskPlayer {
    /// Carries out one effect; returns the event with its outcome, if it has one.
    func perform(_ effect: KioskEffect, answer: inout Result<KioskReply, any Error>?) async -> KioskEvent? {
        switch effect {
        case .load(let id, let item, let startTime):
            return .loaded(id: id, await load(item, startTime: startTime))
        case .launchWelcome(let id, let appID):
            do {
                try await gateway.launch(appID: appID, allowsAndroidReceiver: false)
                return .launched(id: id, .launched)
            } catch {
                return .launched(id: id, KioskPlayer.isLinkProblem(error) ? .linkDown("\(error)") : .failed("\(error)"))
            }
        case .locate(let id, let paths):
            var urls: [Int: String] = [:]
            for (index, path) in paths {
                if let media = try? await locator.media(forLocalPath: path) { urls[index] = media.url }
            }
            return .located(id: id, urls: urls)
        case .stopApp(let failsCommand):
            do {
                try await gateway.perform(.stopApp)
            } catch {
                if failsCommand { answer = .failure(error) } else { logger.info("could not stop the kiosk's app: \(error)") }
            }
        case .tvStandby:
            guard await gateway.hasTVControl else { return .tvControlMissing }
            do {
                try await gateway.perform(.tvStandby)
                logger.notice("TV standby (outside the schedule)")
            } catch {
                logger.warning("TV standby failed: \(error)")
            }
        case .clearGuest(let volume):
            return await clearGuest(volume: volume)
        case .save(let state):
            store.save(state)
        case .flushSaves:
            await store.flush()
        case .reportProblem(let problem):
            await gateway.setKioskProblem(problem)
        case .showItems(let items):
            await gateway.setKioskItems(items)
        case .armTimer(let id, let deadline):
            arm(id, at: deadline)
        case .cancelTimer(let id):
            if timer?.id == id {
                timer?.task.cancel()
                timer = nil
            }
        case .log(let level, let text):
            logger.log(level, text)
        case .reply(let reply):
            answer = .success(reply)
        case .refuse(let error):
            answer = .failure(error)
        }
        return nil
    }

    /// One LOAD: URLs as they are, local paths through the media locator.
    private func load(_ item: PlaylistItem, startTime: Double) async -> KioskLoadOutcome {
        let request: CastRequest
        do {
            request = try await castRequest(for: item, startTime: startTime)
        } catch {
            return .unservable("\(error)")
        }
        do {
            try await gateway.cast(request)
        } catch {
            return KioskPlayer.isLinkProblem(error) ? .linkDown("\(error)") : .failed("\(error)")
        }
        return .loaded(url: request.url, state: await gateway.state)
    }

    /// The LOAD for `item`.
    func castRequest(for item: PlaylistItem, startTime: Double) async throws -> CastRequest {
        var request: CastRequest
        switch item.location {
        case .url(let url):
            request = CastRequest(url: url, title: item.title)
        case .localPath(let path):
            let media = try await locator.media(forLocalPath: path)
            request = CastRequest(url: media.url, title: item.title ?? KioskMachine.fileName(path))
            request.contentType = media.contentType
            if let subtitles = media.subtitles.first {
                request.subtitlesURL = subtitles.url
                request.subtitlesLanguage = subtitles.language ?? "en"
            }
        }
        request.startTime = startTime
        return request
    }

    /// Checkout's steps on the gateway: stops any app on the TV (the guest's),
    /// forgets credentials typed at runtime, resets the volume.
    private func clearGuest(volume: Int) async -> KioskEvent {
        var done: [String] = []
        var failures: [KioskProblem] = []
        // The gateway's own state: the machine's latest snapshot may lag a guest's launch.
        let current = await gateway.state
        if let appID = current.appID {
            do {
                try await gateway.perform(.stopApp)
                done.append("stopped \(current.appName ?? appID)")
            } catch {
                failures.append(KioskProblem(.appNotStopped, "could not stop \(current.appName ?? appID): \(error)"))
            }
        }
        await gateway.forgetTypedCredentials()
        done.append("typed credentials cleared")
        do {
            try await gateway.perform(.setVolume(Double(volume) / 100))
            done.append("volume \(volume)%")
        } catch {
            failures.append(KioskProblem(.volumeNotSet, "could not set the volume to \(volume)%: \(error)"))
        }
        return .guestCleared(done: done, failures: failures)
    }

    /// The machine's one timer: a task sleeping until the deadline, replaced when it is armed anew.
    private func arm(_ id: Int, at deadline: Duration) {
        timer?.task.cancel()
        let clock = self.clock
        let task = Task {
            // Until the deadline, not for a delay: this task may start late.
            guard (try? await clock.sleep(until: deadline)) != nil else { return }
            await self.fire(id)
        }
        timer = (id, task)
    }

    /// The timer's task runs the event it fires, LOADs included: it is no
    /// longer the armed timer, so arming the next one does not cancel that work.
    private func fire(_ id: Int) async {
        guard timer?.id == id else { return }
        timer = nil
        await send(.timerFired(id: id))
    }
}
