/// The namespaces of the Cast v2 platform and the media channel.
public enum CastNamespace {
    public static let connection = "urn:x-cast:com.google.cast.tp.connection"
    public static let heartbeat = "urn:x-cast:com.google.cast.tp.heartbeat"
    public static let deviceAuth = "urn:x-cast:com.google.cast.tp.deviceauth"
    public static let receiver = "urn:x-cast:com.google.cast.receiver"
    public static let media = "urn:x-cast:com.google.cast.media"
    public static let multizone = "urn:x-cast:com.google.cast.multizone"
    public static let setup = "urn:x-cast:com.google.cast.setup"
}

/// Well-known endpoint ids.
public enum CastEndpoint {
    /// The platform sender id, used for heartbeats by convention.
    public static let platformSender = "sender-0"
    /// The receiver platform (receiver namespace, heartbeats).
    public static let platformReceiver = "receiver-0"
    /// Destination of broadcasts to every sender.
    public static let broadcast = "*"
}

/// Well-known receiver application ids.
public enum CastAppID {
    /// Google's Default Media Receiver.
    public static let defaultMediaReceiver = "CC1AD845"
    /// The Backdrop idle screen (shown when nothing is cast).
    public static let backdrop = "E8C28D3C"
}
