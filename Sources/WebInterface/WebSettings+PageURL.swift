extension WebSettings {
    /// The page's address for links from elsewhere on the LAN (Home
    /// Assistant's "Visit" on the device page): the listen address when it
    /// names one, the box's mDNS name (`HOST.local`, which avahi-daemon
    /// publishes) when it listens on every address. nil when no other host
    /// could follow it: loopback, a link-local address with a zone, port 0.
    public func pageURL(hostName: String?) -> String? {
        let port = listen.port
        guard port != 0 else { return nil }
        switch listen.host {
        case "0.0.0.0", "::":
            guard let hostName, !hostName.isEmpty else { return nil }
            return "\(scheme)://\(hostName).local:\(port)/"
        case let host where host.hasPrefix("127.") || host == "::1" || host.contains("%"):
            return nil
        case let host where host.contains(":"):
            return "\(scheme)://[\(host)]:\(port)/"
        case let host:
            return "\(scheme)://\(host):\(port)/"
        }
    }
}
