import CastClient
import DeviceAuth

/// The daemon checks receivers with DeviceAuth's verifier (OpenSSL), through
/// CastClient's seam.
extension DeviceAuthVerifier: DeviceAuthenticator {}

/// The authenticator for `[cast] trust-anchors = DIR` (nil: not set, so
/// every receiver fails with `no-trust-anchors` and a message saying so).
/// Throws a `DeviceAuthError` naming the directory or file that is unreadable.
///
/// Wiring (for the Gateway): `await client.setDeviceAuthentication(policy:
/// settings.authentication, authenticator: try makeDeviceAuthenticator(trustAnchors: settings.trustAnchors))`
/// before `client.start()`.
func makeDeviceAuthenticator(trustAnchors directory: String?) throws -> any DeviceAuthenticator {
    guard let directory else {
        return DeviceAuthVerifier(anchors: TrustAnchors(deviceRoots: [], source: "nowhere: [cast] trust-anchors is not set"))
    }
    return DeviceAuthVerifier(anchors: try TrustAnchors.load(directory: directory))
}
