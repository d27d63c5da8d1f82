import CastClient
import CastProtocol

/// A second sender, the guest's phone: a Cast client that launches and
/// loads in its own app.
struct GuestPhone {
    let client: CastClient
    let app: LaunchSettings

    func launch() async throws { try await client.launch(app) }
    func load(_ request: LoadRequest) async throws { try await client.load(request, launching: app) }
    func stopApplication() async throws { try await client.stopApplication() }
    func stop() async { await client.stop() }
    var currentState: CastClientState { get async { await client.currentState } }
}
