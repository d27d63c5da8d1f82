import GatewayModel
#if canImport(JSON)
import JSON
#endif

/// The fleet's update announcement, retained on `<prefix>/all/update`:
///
///     {"version":"2.1","url":"https://updates.example/cast-gateway-rpi4-2.1.raucb","sha256":"<64 hex>"}
///
/// Home Assistant's update entity reads `version` as the latest version;
/// `update latest` (its Install button) installs `url`. An empty retained
/// message withdraws it. Pure, like the command payloads.
public enum FleetUpdateOffer {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// nil: no announcement (an empty payload).
    public static func parse(_ payload: [UInt8]) -> Result<UpdateRequest?, Problem> {
        guard !payload.isEmpty else { return .success(nil) }
        guard payload.count <= 4096 else { return .failure(Problem(description: "more than 4096 bytes")) }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: payload)
        } catch {
            return .failure(Problem(description: "not JSON: \(error)"))
        }
        guard let object = json.objectValue else {
            return .failure(Problem(description: #"expected {"version": "...", "url": "...", "sha256": "..."}"#))
        }
        guard let version = object["version"]?.stringValue else { return .failure(Problem(description: #"no "version" string"#)) }
        guard let url = object["url"]?.stringValue else { return .failure(Problem(description: #"no "url" string"#)) }
        var sha256: String?
        switch object["sha256"] {
        case nil, .null?: break
        case .string(let value)?: sha256 = value
        default: return .failure(Problem(description: #""sha256" must be a string of 64 hex digits"#))
        }
        do {
            return .success(try UpdateRequest(url: url, sha256: sha256, version: version))
        } catch {
            return .failure(Problem(description: error.description))
        }
    }

    /// The announcement for `request` (deploy/rollout publishes the same with mosquitto_pub).
    public static func payload(_ request: UpdateRequest) -> [UInt8] {
        let object: JSONValue = [
            "version": request.version.map(JSONValue.string) ?? .null,
            "url": .string(request.url),
            "sha256": request.sha256.map(JSONValue.string) ?? .null,
        ]
        return object.serializedBytes
    }
}
