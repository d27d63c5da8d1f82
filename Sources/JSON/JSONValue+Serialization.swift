extension JSONValue {
    /// Compact JSON text: no insignificant whitespace, members in order,
    /// integral numbers without a fraction, non-ASCII left as UTF-8.
    public var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    /// The compact JSON text as UTF-8 bytes.
    public var serializedBytes: [UInt8] { Array(serialized.utf8) }

    func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value): output += JSONValue.format(value)
        case .string(let value): JSONValue.writeString(value, to: &output)
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (position, member) in object.members.enumerated() {
                if position > 0 { output += "," }
                JSONValue.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value.rounded() == value, abs(value) < 9.007_199_254_740_992e15 {
            return String(Int64(value))
        }
        return String(value)  // shortest round-trip form, e.g. 0.5 or 1e-07
    }

    static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            // C0, and also DEL and C1, which some terminals treat as control codes.
            case let control where control.value < 0x20 || (0x7F...0x9F).contains(control.value):
                let hex = String(control.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue {
    /// Names of members whose values are secrets (launch and media
    /// credentials). They never appear in logs.
    public static let secretMemberNames: Set<String> = [
        "credentials", "atvCredentials", "credentialsData",
    ]

    /// A copy with every secret member's value replaced by `"<redacted>"`, at any depth.
    public var redacted: JSONValue {
        switch self {
        case .array(let elements):
            return .array(elements.map(\.redacted))
        case .object(let object):
            return .object(JSONObject(object.members.map { member in
                JSONValue.secretMemberNames.contains(member.key)
                    ? (key: member.key, value: "<redacted>")
                    : (key: member.key, value: member.value.redacted)
            }))
        default:
            return self
        }
    }
}
