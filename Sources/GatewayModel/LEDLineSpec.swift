/// Which GPIO line drives an LED: `GPIO17` (a line name, on whichever chip
/// has it) or `LABEL:OFFSET` (a chip label and line offset), optionally
/// followed by ` active-low`. Never a chip number: Pi chip numbers move
/// between boards and kernels.
public struct LEDLineSpec: Sendable, Equatable {
    public enum Location: Sendable, Equatable {
        case name(String)
        case chip(label: String, offset: UInt32)
    }

    public var location: Location
    public var activeLow: Bool

    public init(location: Location, activeLow: Bool = false) {
        self.location = location
        self.activeLow = activeLow
    }

    /// Nil for text that is neither form.
    public init?(parsing text: String) {
        var words = text.split(separator: " ").map(String.init)
        activeLow = words.last == "active-low"
        if activeLow { words.removeLast() }
        guard words.count == 1, let spec = words.first, !spec.isEmpty else { return nil }
        if let colon = spec.lastIndex(of: ":") {
            let label = String(spec[..<colon])
            guard !label.isEmpty, let offset = UInt32(spec[spec.index(after: colon)...]) else { return nil }
            if label.hasPrefix("gpiochip"), label.dropFirst(8).allSatisfy(\.isNumber) { return nil }  // a chip number
            location = .chip(label: label, offset: offset)
        } else {
            location = .name(spec)
        }
    }

    public var description: String {
        let base: String = switch location {
        case .name(let name): name
        case .chip(let label, let offset): "\(label):\(offset)"
        }
        return activeLow ? base + " active-low" : base
    }
}
