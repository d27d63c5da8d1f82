import CastClient
import DeviceAuth
import GatewayCore
import SystemSupport

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

/// The gateway's factory: an unreadable trust-anchor directory is one error
/// line, and receivers then fail authentication saying why.
/// Without `[cast] trust-anchors` there is nothing to check against: the
/// receiver is not challenged and `status` says so (no warning on every
/// connection of every box that has no anchors).
let deviceAuthenticatorFactory: Gateway.AuthenticatorFactory = { directory in
    guard let directory else { return nil }
    do {
        return try makeDeviceAuthenticator(trustAnchors: directory)
    } catch {
        Logger(label: "deviceauth").error("cannot load the trust anchors: \(error)")
        return DeviceAuthVerifier(anchors: TrustAnchors(deviceRoots: [], source: "nowhere: \(error)"))
    }
}
