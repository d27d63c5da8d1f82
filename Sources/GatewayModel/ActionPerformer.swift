/// What carries out an action: the gateway, in the daemon. The scheduler
/// calls it directly, so no forwarding closure stands between a coalesced
/// step (or a key's action) and the gateway.
public protocol ActionPerformer: Sendable {
    func perform(_ action: Action) async throws
}
