import GatewayModel
import JSON
import SystemSupport

/// One `FleetService.run()`: a single loop that handles everything in turn
/// (state snapshots, MQTT events, timers, failed commands), so its state
/// needs no lock. Child tasks only wait (for the next state, event, command
/// or deadline) and feed the loop; nothing here blocks. The tasks that await
/// command replies publish them through `FleetReplyOutlet`, in order: a
/// reply needs none of the loop's state.
final class FleetSession {
    enum Input: Sendable {
        case state(GatewayState)
        case mqtt(MQTTEvent)
        case attemptFailed(attempt: Int, MQTTError)
        case connectTimedOut(attempt: Int)
        case reconnectDue
        case flushDue
        /// A command failed (its reply is out): the state shows it for a while.
        case commandFailed(FleetCommandRequest, lines: [String])
        /// The connection numbered `epoch` may have stayed up long enough to count as stable.
        case stableDue(epoch: Int)
        /// The oldest held command may have waited its full `command-wait`.
        case heldDue
        /// A remote key, for Home Assistant's key events.
        case key(KeyPress)
        /// A held key's repeat count may be due.
        case keyReportDue
        /// The failed command shown in `problem` may have had its time.
        case failureExpired
    }

    enum Connection: Equatable {
        /// Waiting for the backoff delay before the next attempt.
        case waiting
        case connecting(attempt: Int)
        case connected
    }

    private let service: FleetService
    private let client: any MQTTClient
    private let topics: FleetTopics
    private let logger = Logger(label: "mqtt")
    private let inputs: AsyncStream<Input>
    private let feed: AsyncStream<Input>.Continuation
    private let commands: AsyncStream<Received>
    private let commandFeed: AsyncStream<Received>.Continuation
    /// Read-only commands (`status`...): never wait behind held ones.
    private let queries: AsyncStream<Received>
    private let queryFeed: AsyncStream<Received>.Continuation
    private let replyOutlet: FleetReplyOutlet
    /// The fleet's update announcements, newest only, handed on in order.
    private let offers: AsyncStream<UpdateRequest?>
    private let offerFeed: AsyncStream<UpdateRequest?>.Continuation

    private var connection = Connection.waiting
    private var attempts = 0
    /// When the current connection's CONNACK came, and which one it is.
    private var connectedSince: Duration?
    private var epoch = 0
    /// Set when another box with our client id took the connection over;
    /// shown (even while connected) until a connection stays up for `stablePeriod`.
    private var takeover: String?
    /// Connections in a row that the broker ended soon after accepting them
    /// (reconnecting at once each time): what a takeover looks like without a reason code.
    private var shortLived = 0
    /// Commands that need the receiver, held while it is not connected (and
    /// any command behind them, to keep the order), oldest first.
    private var held: [(received: Received, needsReceiver: Bool, deadline: Duration)] = []
    private var heldTimerArmed = false
    private var backoff = Backoff(initial: .seconds(1), maximum: .seconds(60), jitter: 0.5)
    private var recurring = RecurringProblem()
    private var latest: GatewayState?
    private var published: GatewayState?
    private var dirty = false
    private var lastPublish: Duration?
    private var flushArmed = false
    /// The discovery configs last published, by topic (what Home Assistant has).
    private var announced: [String: [UInt8]] = [:]
    private var announcedAt: Duration?
    /// The Cast devices the device select offers now.
    private var offeredDevices: [String] = []
    /// The names of the kiosk's items the `Play` select offers now (`playlist reload` changes them).
    private var offeredItems: [String] = []
    /// The link availability last published.
    private var linkPublished: Bool?
    private var keyEvents: KeyEventCoalescer
    /// The presets the `Play` select offers: the state names its option.
    private let shownPresets: [HomeAssistantContext.Preset]
    /// The retained configs under this room's node ids (today's and the one
    /// before hashes), split into levels: any not announced any more is removed.
    private let configFilters: [[Substring]]
    private var keyTimerArmed = false
    /// The last failed command and until when it shows.
    private var commandFailure: (message: String, until: Duration)?
    private var failureTimerArmed = false

    /// Commands waiting for the handler; more are refused, not queued without bound.
    static let commandQueueLimit = 64
    /// A connection counts as working (the backoff starts again from its first
    /// delay) only after staying up this long: longer than the longest backoff
    /// delay, so two boxes kicking each other off keep backing off.
    static let stablePeriod: Duration = .seconds(120)
    /// Short-lived connections in a row that count as another box with our client id.
    static let takeoverSuspicion = 3

    init(service: FleetService, client: any MQTTClient) {
        self.service = service
        self.client = client
        topics = service.settings.topics
        (inputs, feed) = AsyncStream.makeStream(of: Input.self)
        (commands, commandFeed) = AsyncStream.makeStream(of: Received.self,
                                                         bufferingPolicy: .bufferingOldest(FleetSession.commandQueueLimit))
        (queries, queryFeed) = AsyncStream.makeStream(of: Received.self,
                                                      bufferingPolicy: .bufferingOldest(FleetSession.commandQueueLimit))
        replyOutlet = FleetReplyOutlet(client: client, topic: topics.reply, failures: feed)
        (offers, offerFeed) = AsyncStream.makeStream(of: UpdateRequest?.self, bufferingPolicy: .bufferingNewest(1))
        keyEvents = KeyEventCoalescer(eventTypes: service.context.eventTypes)
        shownPresets = HomeAssistantDiscovery.presetsShown(settings: service.settings, context: service.context)
        let settings = service.settings
        let node = HomeAssistantDiscovery.nodeID(settings), legacy = HomeAssistantDiscovery.legacyNodeID(settings)
        let nodes = legacy == node ? [node] : [node, legacy]
        configFilters = nodes.flatMap { HomeAssistantDiscovery.configFilter(settings: settings, node: $0) }
            .map { $0.split(separator: "/", omittingEmptySubsequences: false) }
    }

    func run() async {
        await withDiscardingTaskGroup { group in
            let feed = self.feed, client = self.client, states = service.states
            let commands = self.commands, queries = self.queries, outlet = replyOutlet
            // Taken in one at a time, in arrival order; answered in that order
            // (a step's reply waits for the coalesced request that carried it).
            let (replies, replyFeed) = AsyncStream.makeStream(of: (FleetCommandRequest, FleetCommand.Reply).self)
            group.addTask {
                for await state in states() { feed.yield(.state(state)) }
            }
            group.addTask {
                for await event in client.events { feed.yield(.mqtt(event)) }
            }
            if let keys = service.keys, service.settings.haDiscovery, !service.context.keySources.isEmpty {
                group.addTask {
                    for await press in keys() { feed.yield(.key(press)) }
                }
            }
            group.addTask {
                for await received in commands { replyFeed.yield((received.request, await received.command.start())) }
                replyFeed.finish()
            }
            group.addTask {
                for await (request, reply) in replies { outlet.answer(request, with: await reply()) }
            }
            group.addTask {
                for await received in queries {
                    let reply = await received.command.start()
                    outlet.answer(received.request, with: await reply())
                }
            }
            let offers = self.offers, onUpdateOffer = service.onUpdateOffer
            group.addTask {
                for await offer in offers { await onUpdateOffer(offer) }
            }
            startAttempt(in: &group)
            for await input in inputs {
                handle(input, in: &group)
            }
            // Cancelled: say goodbye (a clean DISCONNECT suppresses the Last Will).
            commandFeed.finish()
            queryFeed.finish()
            offerFeed.finish()
            // Held commands will not run: their senders hear so, before the DISCONNECT.
            if connection == .connected {
                for waiting in held {
                    replyOutlet.refuse(id: waiting.received.request.id, lines: [
                        "error: not run: the gateway stopped (or reloaded its settings) while the command waited for the receiver; send it again",
                    ])
                }
            }
            held.removeAll()
            replyOutlet.close()
            let goodbye = connection == .connected
                ? MQTTMessage(topic: topics.availability, text: "offline", qos: 1, retain: true) : nil
            await client.disconnect(after: goodbye)
            service.update(FleetStatus(connected: false, problem: nil))
            group.cancelAll()
        }
    }

    private func handle(_ input: Input, in group: inout DiscardingTaskGroup) {
        switch input {
        case .state(let state):
            latest = state
            publishLink()
            offerChoices(of: state)
            releaseHeld(in: &group)
            if state != published {
                dirty = true
                flushIfDue(in: &group)
            }
        case .flushDue:
            flushArmed = false
            flushIfDue(in: &group)
        case .mqtt(.connected(let sessionPresent)):
            connected(sessionPresent: sessionPresent, in: &group)
        case .mqtt(.refused(let error)):
            if connection != .waiting { failed(error, in: &group) }
        case .mqtt(.disconnected(let error)):
            if connection != .waiting {
                failed(error ?? MQTTError(.connectionLost, "the MQTT broker \(service.settings.broker) closed the connection"), in: &group)
            }
        case .mqtt(.message(let message)):
            received(message, in: &group)
        case .attemptFailed(let attempt, let error):
            if connection == .connecting(attempt: attempt) { failed(error, in: &group) }
        case .connectTimedOut(let attempt):
            if connection == .connecting(attempt: attempt) {
                failed(MQTTError(.timeout, "no answer from the MQTT broker \(service.settings.broker) within \(FleetService.connectTimeout.secondsText)"), in: &group)
            }
        case .reconnectDue:
            if connection == .waiting { startAttempt(in: &group) }
        case .commandFailed(let request, let lines):
            showFailure(of: request, lines: lines, in: &group)
        case .key(let press):
            publishKeyEvents(keyEvents.receive(press, at: service.timeSource.now))
            armKeyTimer(in: &group)
        case .keyReportDue:
            keyTimerArmed = false
            publishKeyEvents(keyEvents.due(at: service.timeSource.now))
            armKeyTimer(in: &group)
        case .failureExpired:
            failureTimerArmed = false
            if let failure = commandFailure, service.timeSource.now >= failure.until {
                commandFailure = nil
                dirty = true
                flushIfDue(in: &group)
            }
            armFailureTimer(in: &group)
        case .stableDue(let epoch):
            if epoch == self.epoch, connection == .connected { stable() }
        case .heldDue:
            heldTimerArmed = false
            releaseHeld(in: &group)
        }
    }

    // MARK: Connection

    private func startAttempt(in group: inout DiscardingTaskGroup) {
        attempts += 1
        let attempt = attempts
        connection = .connecting(attempt: attempt)
        let client = self.client, feed = self.feed, time = service.timeSource
        group.addTask {
            do {
                try await client.connect()
            } catch let error as MQTTError {
                feed.yield(.attemptFailed(attempt: attempt, error))
            } catch {
                feed.yield(.attemptFailed(attempt: attempt, MQTTError(.unreachable, "\(error)")))
            }
        }
        let timeout = time.now + FleetService.connectTimeout
        group.addTask {
            guard (try? await time.sleep(until: timeout)) != nil else { return }
            feed.yield(.connectTimedOut(attempt: attempt))
        }
    }

    private func connected(sessionPresent: Bool, in group: inout DiscardingTaskGroup) {
        connection = .connected
        epoch += 1
        connectedSince = service.timeSource.now
        // The backoff and the problem are reset only once this connection proves stable.
        let feed = self.feed, time = service.timeSource, epoch = self.epoch
        let stableAt = time.now + FleetSession.stablePeriod
        group.addTask {
            guard (try? await time.sleep(until: stableAt)) != nil else { return }
            feed.yield(.stableDue(epoch: epoch))
        }
        let settings = service.settings
        logger.notice("connected to \(settings.broker) as room \(settings.room) (client id \(settings.clientID)\(sessionPresent ? ", session resumed" : ""))")
        // Subscribed on every connection: the broker may have lost the session.
        var filters = topics.commandTopics + [topics.updateOffer]
        if settings.haDiscovery {
            filters.append(HomeAssistantDiscovery.statusTopic(settings))
            filters += configFilters.map { $0.joined(separator: "/") }
        }
        client.subscribe(filters, qos: 1)
        client.publish(MQTTMessage(topic: topics.availability, text: "online", qos: 1, retain: true))
        linkPublished = nil
        publishLink()
        if settings.haDiscovery {
            announced = [:]
            publishDiscovery()
        }
        if latest != nil {
            dirty = true
            flushIfDue(in: &group)
        }
        // Last: whoever sees "connected" sees the announcements already queued.
        service.update(FleetStatus(connected: true, problem: takeover))
    }

    /// The connection stayed up: the next failure starts the backoff from the beginning.
    private func stable() {
        backoff.reset()
        recurring.clear()
        shortLived = 0
        if takeover != nil {
            takeover = nil
            logger.notice("the connection to \(service.settings.broker) has stayed up for \(FleetSession.stablePeriod.secondsText): no other gateway with room \(service.settings.room) seen since")
            service.update(FleetStatus(connected: true, problem: nil))
        }
    }

    private func failed(_ error: MQTTError, in group: inout DiscardingTaskGroup) {
        connection = .waiting
        let now = service.timeSource.now
        if let since = connectedSince {
            if now - since >= FleetSession.stablePeriod {
                stable()
            } else if error.code == .connectionLost || error.code == .sessionTakenOver {
                shortLived += 1
            } else if error.code == .brokerDisconnected {
                shortLived = 0  // the broker said why (restarting, busy): not a silent takeover
            }
        } else {
            shortLived = 0  // the broker itself was away: not a takeover
        }
        connectedSince = nil
        var error = error
        let hadTakeover = takeover != nil
        let settings = service.settings
        let room = "another gateway uses room \(settings.room) on \(settings.broker) (same client id \(settings.clientID))"
        let fix = "give each box its own room = NAME in [mqtt] (cloned SD cards share the host name)"
        if error.code == .sessionTakenOver {
            error = MQTTError(.sessionTakenOver, "\(room): the broker handed this connection to it (MQTT reason: session taken over); \(fix)")
            takeover = error.message
        } else if shortLived >= FleetSession.takeoverSuspicion {
            // Brokers before mosquitto 2.0.15 close the old connection without saying why.
            error = MQTTError(.sessionTakenOver, "\(room), most likely: the broker closed the connection \(shortLived) times within moments of accepting it; \(fix)")
            takeover = error.message
        }
        service.update(FleetStatus(connected: false, problem: error.message))
        if takeover != nil, !hadTakeover { recurring.clear() }  // a warning, once
        recurring.report(error.message, to: logger)
        let delay = backoff.nextDelay()
        logger.debug("next MQTT connection attempt in \(delay.secondsText)")
        let feed = self.feed, time = service.timeSource, due = time.now + delay
        group.addTask {
            guard (try? await time.sleep(until: due)) != nil else { return }
            feed.yield(.reconnectDue)
        }
    }

    // MARK: State, coalesced

    /// Publishes the newest state now if the last publish is old enough,
    /// otherwise once it is (trailing edge): never more than one per interval.
    private func flushIfDue(in group: inout DiscardingTaskGroup) {
        guard connection == .connected, dirty, let state = latest else { return }
        let now = service.timeSource.now
        if let last = lastPublish, now - last < FleetService.publishInterval {
            guard !flushArmed else { return }
            flushArmed = true
            feed(.flushDue, at: last + FleetService.publishInterval, in: &group)
            return
        }
        let context = FleetStateDocument.Context(wallTime: service.wallTime(), presets: shownPresets,
                                                 commandFailure: commandFailure?.message)
        let document = FleetStateDocument.render(state, extras: service.extras, now: now, context: context)
        client.publish(MQTTMessage(topic: topics.state, payload: document.serializedBytes, qos: 1, retain: true))
        published = state
        dirty = false
        lastPublish = now
    }

    // MARK: Home Assistant

    /// Publishes the configs that changed since they were last published.
    private func publishDiscovery() {
        guard service.settings.haDiscovery, connection == .connected else { return }
        let messages = HomeAssistantDiscovery.messages(settings: service.settings, context: service.context,
                                                       version: service.extras.version, devices: offeredDevices, kioskItems: offeredItems)
        for message in messages where announced[message.topic] != message.payload {
            client.publish(message)
            announced[message.topic] = message.payload
        }
        // An entity no longer announced (the device select without devices, the Play select without presets or kiosk items): removed.
        let current = Set(messages.map(\.topic))
        for topic in announced.keys.sorted() where !current.contains(topic) {
            client.publish(MQTTMessage(topic: topic, payload: [], qos: 1, retain: true))
            announced[topic] = nil
        }
        announcedAt = service.timeSource.now
    }

    /// A retained config of ours that is no longer announced (a part turned
    /// off, a preset removed, the old node id): an empty retained message removes it.
    private func receivedConfig(_ message: MQTTMessage) {
        guard message.retain, !message.payload.isEmpty, announced[message.topic] == nil else { return }
        logger.info("removing Home Assistant config \(message.topic): not announced any more")
        client.publish(MQTTMessage(topic: message.topic, payload: [], qos: 1, retain: true))
    }

    private func isConfigTopic(_ topic: String) -> Bool {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        return configFilters.contains { pattern in
            pattern.count == levels.count && zip(pattern, levels).allSatisfy { $0 == "+" || $0 == $1 }
        }
    }

    /// The Cast link's availability, retained, when it changes.
    private func publishLink() {
        guard connection == .connected, let state = latest else { return }
        let up = state.link == .connected
        guard linkPublished != up else { return }
        client.publish(MQTTMessage(topic: topics.link, text: up ? "online" : "offline", qos: 1, retain: true))
        linkPublished = up
    }

    /// The selects offer what the state shows: the device select the devices
    /// discovery sees (and the current one), the `Play` select the kiosk's
    /// items. A change is announced (only the configs that changed go out).
    private func offerChoices(of state: GatewayState) {
        var names = state.devices.map(\.name)
        if !state.deviceName.isEmpty, !names.contains(state.deviceName) { names.insert(state.deviceName, at: 0) }
        let items = state.kioskItems?.names ?? []
        guard names != offeredDevices || items != offeredItems else { return }
        offeredDevices = names
        offeredItems = items
        publishDiscovery()
    }

    private func publishKeyEvents(_ events: [JSONValue]) {
        guard connection == .connected else { return }
        for event in events {
            client.publish(MQTTMessage(topic: topics.keyEvents, payload: event.serializedBytes, qos: 0, retain: false))
        }
    }

    private func armKeyTimer(in group: inout DiscardingTaskGroup) {
        guard !keyTimerArmed, let deadline = keyEvents.deadline else { return }
        keyTimerArmed = true
        feed(.keyReportDue, at: deadline, in: &group)
    }

    /// A failed command shows in the state's `problem` for `commandFailureShown`.
    private func showFailure(of request: FleetCommandRequest, lines: [String], in group: inout DiscardingTaskGroup) {
        let reason = lines.first { $0.hasPrefix("error: ") }.map { String($0.dropFirst("error: ".count)) } ?? lines.first ?? "failed"
        let command = FleetCommandPayload.redacted(request.line)
        commandFailure = ("the command '\(command)' failed: \(reason)", service.timeSource.now + FleetService.commandFailureShown)
        dirty = true
        flushIfDue(in: &group)
        armFailureTimer(in: &group)
    }

    private func armFailureTimer(in group: inout DiscardingTaskGroup) {
        guard !failureTimerArmed, let failure = commandFailure else { return }
        failureTimerArmed = true
        feed(.failureExpired, at: failure.until, in: &group)
    }

    // MARK: Commands

    private func received(_ message: MQTTMessage, in group: inout DiscardingTaskGroup) {
        let settings = service.settings
        if settings.haDiscovery, message.topic == HomeAssistantDiscovery.statusTopic(settings) {
            // Home Assistant restarted. The configs are retained, so it has
            // them; they are sent again (in case the broker lost them) at most
            // once per interval, not at every birth message.
            let now = service.timeSource.now
            if message.payload == Array("online".utf8), connection == .connected,
               announcedAt.map({ now - $0 >= FleetService.rediscoveryInterval }) ?? true {
                announced = [:]
                publishDiscovery()
            }
            return
        }
        if settings.haDiscovery, isConfigTopic(message.topic) {
            receivedConfig(message)
            return
        }
        if message.topic == topics.updateOffer {
            switch FleetUpdateOffer.parse(message.payload) {
            case .success(let offer):
                if let offer { logger.info("the fleet announces update \(offer.version ?? "?") at \(offer.shownURL)") }
                offerFeed.yield(offer)
            case .failure(let problem):
                logger.warning("ignoring the update announcement on \(message.topic): \(problem.description)")
                offerFeed.yield(nil)
            }
            return
        }
        guard topics.commandTopics.contains(message.topic) else {
            logger.debug("ignoring a message on \(message.topic)")
            return
        }
        guard !message.retain else {
            logger.warning("ignoring a retained command on \(message.topic): it would run again at every reconnect; publish commands without the retain flag (clear it with an empty retained message)")
            return
        }
        let request: FleetCommandRequest
        switch FleetCommandPayload.parse(message.payload) {
        case .failure(let error):
            logger.info("command on \(message.topic) rejected: \(error.message)")
            replyOutlet.refuse(id: error.id, lines: ["error: \(error.message)"])
            return
        case .success(let parsed):
            request = parsed
        }
        let shown = FleetCommandPayload.redacted(request.line)
        if FleetCommandPayload.isCredentialCommand(request.line), !settings.allowCredentials {
            logger.info("command on \(message.topic) refused: \(shown) (allow-credentials is off)")
            replyOutlet.refuse(id: request.id, lines: ["error: creds is not accepted over MQTT; set allow-credentials = true in [mqtt] to allow it"])
            return
        }
        logger.info("command on \(message.topic): \(shown)")
        let received = Received(request: request, command: service.handler.prepare(request.line))
        let kind = received.command.kind
        if kind == .query {
            enqueue(received, on: queryFeed)
            return
        }
        if held.isEmpty, kind == .local || receiverConnected || settings.commandWait <= .zero {
            enqueue(received, on: commandFeed)
            return
        }
        guard held.count < FleetSession.commandQueueLimit else {
            refuseBusy(request)
            return
        }
        if kind == .needsReceiver {
            logger.info("\(shown) waits for the receiver (link \(latest?.link.name ?? "unknown"), up to \(settings.commandWait.components.seconds) s)")
        }
        held.append((received, kind == .needsReceiver, service.timeSource.now + settings.commandWait))
        armHeldTimer(in: &group)
    }

    private var receiverConnected: Bool { latest?.link == .connected }

    private func enqueue(_ received: Received, on feed: AsyncStream<Received>.Continuation) {
        if case .dropped = feed.yield(received) { refuseBusy(received.request) }
    }

    private func refuseBusy(_ request: FleetCommandRequest) {
        replyOutlet.refuse(id: request.id, lines: ["error: \(FleetSession.commandQueueLimit) commands are already waiting; try again later"])
    }

    /// Runs the held commands that may run now, in order; expires the ones
    /// that waited `command-wait` for the receiver in vain.
    private func releaseHeld(in group: inout DiscardingTaskGroup) {
        let now = service.timeSource.now
        while let first = held.first {
            if first.needsReceiver, !receiverConnected {
                guard now >= first.deadline else { break }
                held.removeFirst()
                let wait = "\(service.settings.commandWait.components.seconds) s"
                let link = latest?.link.name ?? "unknown"
                logger.info("\(FleetCommandPayload.redacted(first.received.request.line)) not run: the receiver was not connected within \(wait)")
                replyOutlet.refuse(id: first.received.request.id, lines: [
                    "error: not run: the receiver was not connected within \(wait) of the command (link: \(link)); send it again once status shows the link connected",
                ])
                continue
            }
            held.removeFirst()
            enqueue(first.received, on: commandFeed)
        }
        armHeldTimer(in: &group)
    }

    /// A request and its command, read once when it arrived.
    struct Received: Sendable {
        var request: FleetCommandRequest
        var command: FleetCommand
    }

    /// Feeds `input` to the loop at `deadline` on the service's clock (at once if it has passed).
    private func feed(_ input: Input, at deadline: Duration, in group: inout DiscardingTaskGroup) {
        let feed = self.feed, time = service.timeSource
        group.addTask {
            guard (try? await time.sleep(until: deadline)) != nil else { return }
            feed.yield(input)
        }
    }

    private func armHeldTimer(in group: inout DiscardingTaskGroup) {
        guard !heldTimerArmed, let first = held.first, first.needsReceiver else { return }
        heldTimerArmed = true
        feed(.heldDue, at: first.deadline, in: &group)
    }

}
