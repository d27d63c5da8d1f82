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

    /// Members in order; a repeated key keeps its first position and takes
    /// its last value, as assigning them one by one would. Linear time: a
    /// receiver can send thousands of members in one frame.
    public init(_ members: [(key: String, value: JSONValue)]) {
        // Small objects (nearly every Cast payload) are cheaper to scan than to hash.
        guard members.count > JSONObject.linearScanLimit else {
            self.members = []
            self.members.reserveCapacity(members.count)
            for member in members {
                if let index = self.members.firstIndex(where: { $0.key == member.key }) {
                    self.members[index].value = member.value
                } else {
                    self.members.append(member)
                }
            }
            return
        }
        var indexByKey: [String: Int] = [:]
        indexByKey.reserveCapacity(members.count)
        var unique: [(key: String, value: JSONValue)] = []
        unique.reserveCapacity(members.count)
        for member in members {
            if let index = indexByKey[member.key] {
                unique[index].value = member.value
            } else {
                indexByKey[member.key] = unique.count
                unique.append(member)
            }
        }
        self.members = unique
    }

    /// Up to this many members, duplicates are found by scanning.
    static let linearScanLimit = 16

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

    /// Keys are unique, so equal counts and every member found equal means equal.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        guard lhs.members.count > linearScanLimit else {
            return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
        }
        var rhsIndexByKey: [String: Int] = [:]
        rhsIndexByKey.reserveCapacity(rhs.members.count)
        for (index, member) in rhs.members.enumerated() { rhsIndexByKey[member.key] = index }
        return lhs.members.allSatisfy { member in
            rhsIndexByKey[member.key].map { rhs.members[$0].value == member.value } ?? false
        }
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
