import GatewayModel
import ServiceLifecycle
import SystemSupport

/// Runs the TV machine: feeds it the gateway's states, the CEC source's bus
/// events, the gateway's own TV commands and its timer, and carries out its
/// effects. Receiver actions run one at a time, in order, beside the loop,
/// so a slow receiver never holds up the bus.
public struct TVService: Service {
    public let name = "tv"
    private let gateway: Gateway
    private let configuration: TVMachineConfiguration
    private let device: any TVControl
    private let busEvents: AsyncStream<TVBusEvent>
    private let commands: AsyncStream<TVCommand>
    private let logger = Logger(label: "tv")

    /// The TV control to hand to the gateway (`tv on`, keys, the kiosk): its
    /// commands go through the machine, which then knows that what the TV
    /// does next is the gateway's doing.
    public let control: any TVControl

    public init(gateway: Gateway, configuration: TVMachineConfiguration, device: any TVControl, busEvents: AsyncStream<TVBusEvent>) {
        self.gateway = gateway
        self.configuration = configuration
        self.device = device
        self.busEvents = busEvents
        let (commands, sink) = AsyncStream.makeStream(of: TVCommand.self)
        self.commands = commands
        control = MachineControl(commands: sink, device: device)
    }

    public func run() async throws {
        let clock = gateway.timeSource
        let (events, eventSink) = AsyncStream.makeStream(of: TVMachineEvent.self)
        let (actions, actionSink) = AsyncStream.makeStream(of: Action.self)
        let gateway = self.gateway, busEvents = self.busEvents, commands = self.commands, logger = self.logger
        // Subscribed before the TV's status is first shown: from then on no state is missed.
        let states = gateway.states()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await state in states { eventSink.yield(.snapshot(state)) }
            }
            group.addTask {
                for await event in busEvents { eventSink.yield(.bus(event)) }
            }
            group.addTask {
                for await command in commands { eventSink.yield(.command(command)) }
            }
            group.addTask {
                for await action in actions {
                    do {
                        try await gateway.perform(action)
                    } catch {
                        logger.warning("\(action.name) for the TV failed: \(error)")
                    }
                }
            }
            var machine = TVMachine(configuration: configuration)
            var timer: Task<Void, Never>?
            var shown = ""
            await gateway.setTVStatus(machine.state.tv)
            for await event in events {
                for effect in machine.handle(event, at: clock.now) {
                    switch effect {
                    case .perform(let action): actionSink.yield(action)
                    case .powerOn(let input): device.powerOnTV(selecting: input)
                    case .standby: device.standbyTV()
                    case .selectInput(let address): device.selectInput(address)
                    case .send(let message): device.send(message)
                    case .publish(let status):
                        // For installers reading the log: what the gateway knows of the TV, when it changes.
                        if status.summary != shown {
                            shown = status.summary
                            logger.info("tv: \(shown)")
                        }
                        await gateway.setTVStatus(status)
                    case .armTimer(let id, let deadline):
                        timer?.cancel()
                        timer = Task {
                            guard (try? await clock.sleep(until: deadline)) != nil else { return }
                            eventSink.yield(.timerFired(id: id))
                        }
                    case .cancelTimer:
                        timer?.cancel()
                        timer = nil
                    case .log(let level, let text): logger.log(level, text)
                    }
                }
            }
            timer?.cancel()
            actionSink.finish()
            group.cancelAll()
        }
        await gateway.setTVStatus(nil)
    }
}

/// The gateway's TV control while the machine runs.
private struct MachineControl: TVControl {
    let commands: AsyncStream<TVCommand>.Continuation
    let device: any TVControl

    func powerOnTV(selecting physicalAddress: UInt16?) { commands.yield(.powerOn(selecting: physicalAddress)) }
    func standbyTV() { commands.yield(.standby) }
    func selectInput(_ physicalAddress: UInt16) { commands.yield(.selectInput(physicalAddress)) }
    func send(_ message: TVBusMessage) { device.send(message) }
}
