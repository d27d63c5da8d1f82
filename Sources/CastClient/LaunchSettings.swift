import CastProtocol

/// What a request that may launch an app launches, and the credentials that go
/// with it. The client keeps none of this: its owner (the gateway's settings)
/// sends it with every launch, LOAD and queue request, so there is no copy to
/// keep in step on a reload.
public struct LaunchSettings: Sendable, Equatable {
    /// The receiver app for media.
    public var appID: String
    /// Allow an Android TV receiver app (Cast Connect) for `appID`.
    public var allowsAndroidReceiver: Bool
    /// Sent with LAUNCH (never logged).
    public var credentials: LaunchCredentials?
    /// Sent with LOAD and QUEUE_LOAD (never logged); nil: `credentials`.
    public var mediaCredentials: LaunchCredentials?

    public init(appID: String = CastAppID.defaultMediaReceiver, allowsAndroidReceiver: Bool = false,
                credentials: LaunchCredentials? = nil, mediaCredentials: LaunchCredentials? = nil) {
        self.appID = appID
        self.allowsAndroidReceiver = allowsAndroidReceiver
        self.credentials = credentials
        self.mediaCredentials = mediaCredentials
    }

    /// LOAD's credentials: the media ones, else the launch ones.
    public var loadCredentials: LaunchCredentials? { mediaCredentials ?? credentials }
}
