/// The kiosk's items and the order it plays them in: pure, so parsing,
/// shuffling and stepping are tested without a receiver.
public struct Playlist: Sendable, Equatable {
    /// In file (or name) order.
    public private(set) var items: [PlaylistItem]
    /// Where the items came from (file or directory), for messages.
    public var origin: String
    /// The play order: a permutation of the item indices (shuffled or not).
    public private(set) var order: [Int]
    /// Position in `order` of the current item.
    public private(set) var cursor = 0

    public init(items: [PlaylistItem], origin: String = "playlist") {
        self.items = items
        self.origin = origin
        order = Array(items.indices)
    }

    public var isEmpty: Bool { items.isEmpty }
    public var count: Int { items.count }

    /// Index (in `items`) of the current item.
    public var currentIndex: Int? { order.indices.contains(cursor) ? order[cursor] : nil }
    public var current: PlaylistItem? { currentIndex.map { items[$0] } }
    /// Whether the current item is the last of this round.
    public var isAtEnd: Bool { cursor >= order.count - 1 }

    /// Back to the first item of a new round (reshuffled when `shuffle`).
    public mutating func rewind<G: RandomNumberGenerator>(shuffle: Bool, using generator: inout G) {
        order = Array(items.indices)
        if shuffle { order.shuffle(using: &generator) }
        cursor = 0
    }

    /// Steps to the next item. At the end of a round: with `loop`, starts a
    /// new round (reshuffled when `shuffle`) and returns true; without, stays
    /// and returns false.
    @discardableResult
    public mutating func advance<G: RandomNumberGenerator>(loop: Bool, shuffle: Bool, using generator: inout G) -> Bool {
        guard !order.isEmpty else { return false }
        if cursor + 1 < order.count {
            cursor += 1
            return true
        }
        guard loop else { return false }
        let last = order[cursor]
        rewind(shuffle: shuffle, using: &generator)
        // A new round does not start with the item just played (when it can avoid it).
        if shuffle, order.count > 1, order[0] == last { order.swapAt(0, order.count - 1) }
        return true
    }

    /// Steps back one item (to the last one from the first, within this order).
    public mutating func previous() {
        guard !order.isEmpty else { return }
        cursor = cursor > 0 ? cursor - 1 : order.count - 1
    }

    /// Makes item `index` (in `items`) the current one.
    public mutating func select(itemIndex index: Int) {
        guard let position = order.firstIndex(of: index) else { return }
        cursor = position
    }

    /// The index of the item whose source (URL or path as written) is `source`.
    public func index(ofSource source: String) -> Int? {
        items.firstIndex { $0.source == source }
    }
}

/// A small, fast, seedable generator (SplitMix64), so tests get a known shuffle.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    /// Seeded from the system's generator.
    public init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
