import GatewayModel
import JSON

/// The page's Software section: the release this box runs and whether it
/// takes A/B updates (an image with RAUC, `[update]` not off). Read at each
/// page and state request: a reload may change `[update]`.
public struct WebSoftware: Sendable, Equatable {
    /// The release (`/etc/cast-gateway/release` on an image, else the binary's version).
    public var version: String
    /// Whether `update URL` can work here; false: the box is updated with its package.
    public var updates: Bool

    public init(version: String, updates: Bool) {
        self.version = version
        self.updates = updates
    }

    /// What `/api/state` carries as `software`: texts for people, shown with `textContent`.
    ///
    ///     {"version":"1.4.0","updates":true,"progress":"downloading 1.5: 40%","active":true,
    ///      "report":"updated to 1.4.0 (was 1.3.2)","offer":"1.5"}
    public func json(_ state: GatewayState) -> JSONValue {
        var object = JSONObject()
        object["version"] = .string(version)
        object["updates"] = .bool(updates)
        object["progress"] = state.updateProgress.map { .string($0.summary) } ?? .null
        object["active"] = .bool(state.updateProgress?.isActive ?? false)
        object["report"] = state.update.map { .string($0.summary) } ?? .null
        object["offer"] = state.updateOffer.map { .string($0.version ?? UpdateRequest.shownURL($0.url)) } ?? .null
        return .object(object)
    }
}
