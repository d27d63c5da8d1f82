/// A JSON value, small and dependency-free.
///
/// Cast payloads are JSON text carried in protobuf frames. The daemon reads
/// only a few fields of each and must tolerate everything else, so a plain
/// value type with optional accessors is a better fit than `Codable`, and it
/// keeps Foundation out of the binary. Object members keep their order, so a
/// message serializes exactly as it was built.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    // MARK: Accessors returning nil for the wrong kind

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an `Int` when it is integral and in range.
    public var intValue: Int? {
        guard case .number(let value) = self, value.isFinite, value.rounded() == value,
              value >= -9.007_199_254_740_992e15, value <= 9.007_199_254_740_992e15 else { return nil }
        return Int(value)
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

/// A JSON object that keeps member order; equality ignores order.
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }

    public init(_ members: [(key: String, value: JSONValue)]) {
        self.members = []
        for member in members { self[member.key] = member.value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }

    public var keys: [String] { members.map(\.key) }
    public var isEmpty: Bool { members.isEmpty }

    /// Reads a member; assigning nil removes it, assigning a value replaces it in place.
    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { $0.key == key })?.value }
        set {
            let index = members.firstIndex(where: { $0.key == key })
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }
}

// MARK: Literals, so payloads read like the JSON they produce

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }

    /// A number from an `Int`.
    public static func int(_ value: Int) -> JSONValue { .number(Double(value)) }
}
