import GatewayModel
import JSON
import SystemSupport

/// One `FleetService.run()`: a single loop that handles everything in turn
/// (state snapshots, MQTT events, timers, command replies), so its state
/// needs no lock. Child tasks only wait (for the next state, event, command
/// or deadline) and feed the loop; nothing here blocks.
final class FleetSession {
    enum Input: Sendable {
        case state(GatewayState)
        case mqtt(MQTTEvent)
        case attemptFailed(attempt: Int, MQTTError)
        case connectTimedOut(attempt: Int)
        case reconnectDue
        case flushDue
        case replied(FleetCommandRequest, FleetReply)
        /// The connection numbered `epoch` may have stayed up long enough to count as stable.
        case stableDue(epoch: Int)
        /// The oldest held command may have waited its full `command-wait`.
        case heldDue
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
    }

    func run() async {
        await withDiscardingTaskGroup { group in
            let feed = self.feed, client = self.client, states = service.states
            let commands = self.commands, queries = self.queries
            // Taken in one at a time, in arrival order; answered in that order
            // (a step's reply waits for the coalesced request that carried it).
            let (replies, replyFeed) = AsyncStream.makeStream(of: (FleetCommandRequest, FleetCommand.Reply).self)
            group.addTask {
                for await state in states() { feed.yield(.state(state)) }
            }
            group.addTask {
                for await event in client.events { feed.yield(.mqtt(event)) }
            }
            group.addTask {
                for await received in commands { replyFeed.yield((received.request, await received.command.start())) }
                replyFeed.finish()
            }
            group.addTask {
                for await (request, reply) in replies { feed.yield(.replied(request, await reply())) }
            }
            group.addTask {
                for await received in queries {
                    let reply = await received.command.start()
                    feed.yield(.replied(received.request, await reply()))
                }
            }
            startAttempt(in: &group)
            for await input in inputs {
                handle(input, in: &group)
            }
            // Cancelled: say goodbye (a clean DISCONNECT suppresses the Last Will).
            commandFeed.finish()
            queryFeed.finish()
            // Held commands will not run: their senders hear so, before the DISCONNECT.
            if connection == .connected {
                for waiting in held {
                    publishReply(id: waiting.received.request.id, ok: false, lines: [
                        "error: not run: the gateway stopped (or reloaded its settings) while the command waited for the receiver; send it again",
                    ])
                }
            }
            held.removeAll()
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
        case .replied(let request, let reply):
            publishReply(id: request.id, ok: reply.ok, lines: scrubbed(reply.lines, for: request.line))
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
        group.addTask {
            guard (try? await time.sleep(for: FleetService.connectTimeout)) != nil else { return }
            feed.yield(.connectTimedOut(attempt: attempt))
        }
    }

    private func connected(sessionPresent: Bool, in group: inout DiscardingTaskGroup) {
        connection = .connected
        epoch += 1
        connectedSince = service.timeSource.now
        // The backoff and the problem are reset only once this connection proves stable.
        let feed = self.feed, time = service.timeSource, epoch = self.epoch
        group.addTask {
            guard (try? await time.sleep(for: FleetSession.stablePeriod)) != nil else { return }
            feed.yield(.stableDue(epoch: epoch))
        }
        let settings = service.settings
        logger.notice("connected to \(settings.broker) as room \(settings.room) (client id \(settings.clientID)\(sessionPresent ? ", session resumed" : ""))")
        // Subscribed on every connection: the broker may have lost the session.
        var filters = topics.commandTopics
        if settings.haDiscovery { filters.append(HomeAssistantDiscovery.statusTopic(settings)) }
        client.subscribe(filters, qos: 1)
        client.publish(MQTTMessage(topic: topics.availability, text: "online", qos: 1, retain: true))
        if settings.haDiscovery { publishDiscovery() }
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
        let feed = self.feed, time = service.timeSource
        group.addTask {
            guard (try? await time.sleep(for: delay)) != nil else { return }
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
            let wait = last + FleetService.publishInterval - now
            let feed = self.feed, time = service.timeSource
            group.addTask {
                guard (try? await time.sleep(for: wait)) != nil else { return }
                feed.yield(.flushDue)
            }
            return
        }
        let document = FleetStateDocument.render(state, extras: service.extras, now: now)
        client.publish(MQTTMessage(topic: topics.state, payload: document.serializedBytes, qos: 1, retain: true))
        published = state
        dirty = false
        lastPublish = now
    }

    private func publishDiscovery() {
        for message in HomeAssistantDiscovery.messages(settings: service.settings, version: service.extras.version) {
            client.publish(message)
        }
    }

    // MARK: Commands

    private func received(_ message: MQTTMessage, in group: inout DiscardingTaskGroup) {
        let settings = service.settings
        if settings.haDiscovery, message.topic == HomeAssistantDiscovery.statusTopic(settings) {
            // Home Assistant restarted: send the configs again in case its broker forgot them.
            if message.payload == Array("online".utf8), connection == .connected { publishDiscovery() }
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
            publishReply(id: error.id, ok: false, lines: ["error: \(error.message)"])
            return
        case .success(let parsed):
            request = parsed
        }
        let shown = FleetCommandPayload.redacted(request.line)
        if FleetCommandPayload.isCredentialCommand(request.line), !settings.allowCredentials {
            logger.info("command on \(message.topic) refused: \(shown) (allow-credentials is off)")
            publishReply(id: request.id, ok: false,
                         lines: ["error: creds is not accepted over MQTT; set allow-credentials = true in [mqtt] to allow it"])
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
        publishReply(id: request.id, ok: false,
                     lines: ["error: \(FleetSession.commandQueueLimit) commands are already waiting; try again later"])
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
                publishReply(id: first.received.request.id, ok: false, lines: [
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

    private func armHeldTimer(in group: inout DiscardingTaskGroup) {
        guard !heldTimerArmed, let first = held.first, first.needsReceiver else { return }
        heldTimerArmed = true
        let wait = max(first.deadline - service.timeSource.now, .zero)
        let feed = self.feed, time = service.timeSource
        group.addTask {
            guard (try? await time.sleep(for: wait)) != nil else { return }
            feed.yield(.heldDue)
        }
    }

    private func publishReply(id: JSONValue, ok: Bool, lines: [String]) {
        client.publish(MQTTMessage(topic: topics.reply, payload: FleetCommandPayload.reply(id: id, ok: ok, lines: lines),
                                   qos: 1, retain: false))
    }

    /// A `creds` secret never leaves in a reply, whatever the handler said.
    private func scrubbed(_ lines: [String], for line: String) -> [String] {
        guard FleetCommandPayload.isCredentialCommand(line) else { return lines }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let secret = words.dropFirst().joined(separator: " ")
        guard secret.count >= 3, secret != "clear" else { return lines }
        return lines.map { $0.replacing(secret, with: "<redacted>") }
    }
}
