import GatewayCore
import GatewayModel

/// The media locator while the box has no media server: http(s) URLs are
/// cast as they are, and local files are refused with the reason.
public struct LocalFilesUnavailable: MediaLocator {
    public init() {}

    public func media(forLocalPath path: String) async throws -> LocatedMedia {
        throw GatewayError(.unavailable,
                           "cannot play the local file \(path): local files need [media] roots (the box's media server); use http(s) URLs until then")
    }
}
