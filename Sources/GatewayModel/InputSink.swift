/// Where every remote input delivers its key events: LIRC, evdev, CEC and the
/// console's `key NAME` all feed one stream, which the remote-control service
/// maps through keymaps into actions. Input flows one way.
public typealias InputSink = AsyncStream<InputEvent>.Continuation

extension InputEvent {
    /// One bounded stream for all inputs: a flood of keys (100,000 at full
    /// speed) keeps the newest 256, never unbounded memory.
    public static func makeStream() -> (events: AsyncStream<InputEvent>, sink: InputSink) {
        let (events, sink) = AsyncStream.makeStream(of: InputEvent.self, bufferingPolicy: .bufferingNewest(256))
        return (events, sink)
    }
}

/// What handles a key event: the remote control (keymaps, then the
/// scheduler). The console's `key NAME` calls it directly and awaits it, so
/// the reply comes after the key took effect, by the same path as a real key.
public protocol InputHandler: Sendable {
    func handle(_ event: InputEvent) async
}
