extension FleetSettings {
    /// Every key `parse` accepts, in the order the README lists them.
    public static let keys = ["broker", "ca-file", "cert-file", "key-file", "username", "password-file", "room",
                              "client-id", "topic-prefix", "keepalive", "groups", "allow-credentials", "ha-discovery",
                              "ha-prefix", "ha-presets", "command-wait"]

    /// Builds settings from the `[mqtt]` section's `key = value` pairs.
    /// Errors name the key; the caller adds file and line. The password file
    /// is checked here (exists, mode 0600) but read only when connecting.
    public static func parse(_ entries: [(key: String, value: String)],
                             hostname: String? = FleetSettings.hostname()) throws(FleetSettingsError) -> FleetSettings {
        var values: [String: String] = [:]
        for (key, value) in entries {
            let key = key.lowercased()
            guard keys.contains(key) else {
                throw FleetSettingsError(key: key, "unknown key in [mqtt] (known: \(keys.joined(separator: ", ")))")
            }
            guard values[key] == nil else { throw FleetSettingsError(key: key, "set twice") }
            values[key] = value
        }
        func text(_ key: String) -> String? {
            guard let value = values[key], !value.isEmpty else { return nil }
            return value
        }

        guard let url = text("broker") else {
            throw FleetSettingsError(key: "broker", "missing: set broker = mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        }
        let broker = try parseBroker(url)

        let roomText = text("room") ?? hostname
        guard let room = roomText else {
            throw FleetSettingsError(key: "room", "this machine has no host name; set room = NAME")
        }
        if let problem = FleetTopics.problem(withLevel: room) {
            throw FleetSettingsError(key: "room", "'\(room)' \(problem)")
        }
        if room == "all" || room == "group" {
            throw FleetSettingsError(key: "room", "'\(room)' is reserved for group commands (\(FleetTopics.defaultPrefix)/all/cmd, .../group/NAME/cmd); choose another name")
        }
        var settings = FleetSettings(broker: broker, room: room)

        if let clientID = text("client-id") {
            guard clientID.utf8.count <= 128, !clientID.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw FleetSettingsError(key: "client-id", "must be at most 128 bytes without control characters")
            }
            settings.clientID = clientID
        }
        if let prefix = text("topic-prefix") {
            if let problem = FleetTopics.problem(withPrefix: prefix) { throw FleetSettingsError(key: "topic-prefix", "'\(prefix)' \(problem)") }
            settings.topicPrefix = prefix
        }
        if let keepalive = text("keepalive") {
            guard let seconds = Int(keepalive), (5...3600).contains(seconds) else {
                throw FleetSettingsError(key: "keepalive", "'\(keepalive)' must be a whole number of seconds from 5 to 3600")
            }
            settings.keepalive = seconds
        }
        if let groups = text("groups") {
            var names: [String] = []
            for name in groups.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init) {
                if let problem = FleetTopics.problem(withLevel: name) { throw FleetSettingsError(key: "groups", "group '\(name)' \(problem)") }
                if !names.contains(name) { names.append(name) }
            }
            settings.groups = names
        }
        settings.allowCredentials = try parseBool(values["allow-credentials"], key: "allow-credentials") ?? false
        settings.haDiscovery = try parseBool(values["ha-discovery"], key: "ha-discovery") ?? true
        if let prefix = text("ha-prefix") {
            if let problem = FleetTopics.problem(withPrefix: prefix) { throw FleetSettingsError(key: "ha-prefix", "'\(prefix)' \(problem)") }
            settings.haPrefix = prefix
        }
        if let presets = text("ha-presets") {
            settings.haPresets = try parsePresets(presets)
        }
        if let wait = text("command-wait") {
            guard let seconds = Int(wait), (0...3600).contains(seconds) else {
                throw FleetSettingsError(key: "command-wait", "'\(wait)' must be a whole number of seconds from 0 to 3600")
            }
            settings.commandWait = .seconds(seconds)
        }

        // TLS files and credentials.
        settings.caFile = text("ca-file")
        settings.certFile = text("cert-file")
        settings.keyFile = text("key-file")
        for key in ["ca-file", "cert-file", "key-file"] where text(key) != nil && !broker.tls {
            throw FleetSettingsError(key: key, "only used with an mqtts:// broker (the broker is \(broker))")
        }
        if (settings.certFile == nil) != (settings.keyFile == nil) {
            throw FleetSettingsError(key: settings.certFile == nil ? "cert-file" : "key-file",
                                     "cert-file and key-file go together: set both for a client certificate, or neither")
        }
        for (key, path, what) in [("ca-file", settings.caFile, "CA file"), ("cert-file", settings.certFile, "client certificate"),
                                  ("key-file", settings.keyFile, "client key")] {
            guard let path else { continue }
            do {
                try checkPEMFile(path, what: what)
            } catch {
                throw FleetSettingsError(key: key, error.message)
            }
        }
        settings.username = text("username")
        settings.passwordFile = text("password-file")
        if let path = settings.passwordFile {
            guard settings.username != nil else {
                throw FleetSettingsError(key: "password-file", "needs a username: set username = NAME too")
            }
            do {
                _ = try readPassword(path)
            } catch {
                throw FleetSettingsError(key: "password-file", error.message)
            }
        }
        return settings
    }

    /// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`; IPv6 hosts in brackets.
    public static func parseBroker(_ url: String) throws(FleetSettingsError) -> Broker {
        let usage = "use mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
        let tls: Bool
        let rest: Substring
        if url.lowercased().hasPrefix("mqtts://") {
            tls = true
            rest = url.dropFirst("mqtts://".count)
        } else if url.lowercased().hasPrefix("mqtt://") {
            tls = false
            rest = url.dropFirst("mqtt://".count)
        } else {
            throw FleetSettingsError(key: "broker", "'\(url)' is not a broker URL: \(usage)")
        }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        if authority.contains("@") {
            throw FleetSettingsError(key: "broker", "no credentials in the URL: use username and password-file")
        }
        if authority.contains("/") || authority.contains("?") || authority.contains("#") {
            throw FleetSettingsError(key: "broker", "'\(url)' has a path; MQTT brokers have none: \(usage)")
        }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw FleetSettingsError(key: "broker", "'\(url)' has an unclosed '[' around an IPv6 address")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw FleetSettingsError(key: "broker", "'\(url)': \(usage)") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, !host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw FleetSettingsError(key: "broker", "'\(url)' has no host: \(usage)")
        }
        var port: UInt16 = tls ? 8883 : 1883
        if let portText {
            guard let value = UInt16(portText), value > 0 else {
                throw FleetSettingsError(key: "broker", "'\(portText)' is not a port (1-65535)")
            }
            port = value
        }
        return Broker(host: String(host), port: port, tls: tls)
    }

    static func parseBool(_ value: String?, key: String) throws(FleetSettingsError) -> Bool? {
        guard let value, !value.isEmpty else { return nil }
        switch value.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw FleetSettingsError(key: key, "'\(value)' must be true or false")
        }
    }

    /// `0-9`, `1,2,5`, `none`.
    static func parsePresets(_ text: String) throws(FleetSettingsError) -> [Int] {
        if text.lowercased() == "none" { return [] }
        var presets: [Int] = []
        for part in text.split(whereSeparator: { $0 == "," || $0 == " " }) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]),
                  (0...9).contains(low), (0...9).contains(high), low <= high else {
                throw FleetSettingsError(key: "ha-presets", "'\(part)' is not a preset number 0-9 or a range like 0-9 (or say none)")
            }
            for preset in low...high where !presets.contains(preset) { presets.append(preset) }
        }
        return presets.sorted()
    }
}
