import Configuration
import SystemSupport

extension FleetSettings {
    /// Reads a present `[mqtt]` section (see the README, "Fleet and Home
    /// Assistant"); `hostname` is the default room. Every error is a
    /// `ConfigError` with file, line and key: a missing key is shown at the
    /// section's header. The password file is checked here (exists, mode
    /// 0600) but read only when connecting.
    public init(from section: inout ConfigSection, hostname: String?) throws(ConfigError) {
        // Every key is asked for first, in the README's order: that is the
        // order of the "unknown key" list. An empty value keeps the default,
        // as it always has in [mqtt].
        let brokerEntry = section.nonEmptyEntry("broker")
        let caFile = section.nonEmptyEntry("ca-file")
        let certFile = section.nonEmptyEntry("cert-file")
        let keyFile = section.nonEmptyEntry("key-file")
        let username = section.nonEmptyEntry("username")
        let passwordFile = section.nonEmptyEntry("password-file")
        let roomEntry = section.nonEmptyEntry("room")
        let clientID = section.nonEmptyEntry("client-id")
        let topicPrefix = section.nonEmptyEntry("topic-prefix")
        let keepalive = section.nonEmptyEntry("keepalive")
        let groups = section.nonEmptyEntry("groups")
        let allowCredentials = section.nonEmptyEntry("allow-credentials")
        let haDiscovery = section.nonEmptyEntry("ha-discovery")
        let haPrefix = section.nonEmptyEntry("ha-prefix")
        let haPresets = section.nonEmptyEntry("ha-presets")
        let area = section.nonEmptyEntry("area")
        let commandWait = section.nonEmptyEntry("command-wait")

        guard let brokerEntry else {
            throw section.error(at: "broker", "missing: set broker = mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        }
        let broker = try FleetSettings.parseBroker(brokerEntry, in: section)

        guard let room = roomEntry?.value ?? hostname else {
            throw section.error(at: "room", "this machine has no host name; set room = NAME")
        }
        if let problem = FleetTopics.problem(withLevel: room) {
            throw section.error(at: "room", "'\(room)' \(problem)")
        }
        if room == "all" || room == "group" {
            throw section.error(at: "room", "'\(room)' is reserved for group commands (\(FleetTopics.defaultPrefix)/all/cmd, .../group/NAME/cmd); choose another name")
        }
        self.init(broker: broker, room: room)

        if let clientID {
            guard clientID.value.utf8.count <= 128,
                  !clientID.value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw section.error(clientID, "must be at most 128 bytes without control characters")
            }
            self.clientID = clientID.value
        }
        if let topicPrefix {
            if let problem = FleetTopics.problem(withPrefix: topicPrefix.value) {
                throw section.error(topicPrefix, "'\(topicPrefix.value)' \(problem)")
            }
            self.topicPrefix = topicPrefix.value
        }
        if let keepalive {
            self.keepalive = try section.seconds(keepalive, in: 5...3600)
        }
        if let groups {
            var names: [String] = []
            for name in groups.value.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init) {
                if let problem = FleetTopics.problem(withLevel: name) { throw section.error(groups, "group '\(name)' \(problem)") }
                if !names.contains(name) { names.append(name) }
            }
            self.groups = names
        }
        if allowCredentials != nil { self.allowCredentials = try section.bool("allow-credentials") ?? false }
        if haDiscovery != nil { self.haDiscovery = try section.bool("ha-discovery") ?? true }
        if let haPrefix {
            if let problem = FleetTopics.problem(withPrefix: haPrefix.value) { throw section.error(haPrefix, "'\(haPrefix.value)' \(problem)") }
            self.haPrefix = haPrefix.value
        }
        if let haPresets {
            self.haPresets = try FleetSettings.parsePresets(haPresets, in: section)
        }
        if let area {
            guard area.value.count <= 64, !area.value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw section.error(area, "must be at most 64 characters without control characters")
            }
            self.area = area.value
        }
        if let commandWait {
            self.commandWait = .seconds(try section.seconds(commandWait, in: 0...3600))
        }

        // TLS files and credentials.
        for entry in [caFile, certFile, keyFile].compactMap({ $0 }) where !broker.tls {
            throw section.error(entry, "only used with an mqtts:// broker (the broker is \(broker))")
        }
        if (certFile == nil) != (keyFile == nil) {
            throw section.error(at: certFile == nil ? "cert-file" : "key-file",
                                "cert-file and key-file go together: set both for a client certificate, or neither")
        }
        for (entry, what) in [(caFile, "CA file"), (certFile, "client certificate"), (keyFile, "client key")] {
            guard let entry else { continue }
            do {
                try FleetSettings.checkPEMFile(entry.value, what: what)
            } catch {
                throw section.error(entry, error.message)
            }
        }
        self.caFile = caFile?.value
        self.certFile = certFile?.value
        self.keyFile = keyFile?.value
        self.username = username?.value
        if let passwordFile {
            guard username != nil else {
                throw section.error(passwordFile, "needs a username: set username = NAME too")
            }
            do {
                _ = try FleetSettings.readPassword(passwordFile.value)
            } catch {
                throw section.error(passwordFile, error.message)
            }
            self.passwordFile = passwordFile.value
        }
    }

    /// Settings from `key = value` pairs given outside a config file (a
    /// tool's command line), read exactly as a `[mqtt]` section is; errors
    /// name `origin` as their file.
    public static func parse(_ pairs: [(key: String, value: String)], hostname: String? = FleetSettings.hostname(),
                             origin: String = "arguments") throws(ConfigError) -> FleetSettings {
        var text = "[\(MQTTSection.sectionName)]\n"
        for (key, value) in pairs {
            // Each pair must stay one quoted line.
            guard !(key + value).contains(where: { $0 == "\"" || $0.isNewline }) else {
                throw ConfigError(file: origin, line: nil, key: "[\(MQTTSection.sectionName)] \(ConfigFile.quotedForError(key))",
                                  message: "must not contain a quote or a line break")
            }
            text += "\(key) = \"\(value)\"\n"
        }
        var section = try ConfigFile(path: origin, text: text).section(MQTTSection.sectionName)
        let settings = try FleetSettings(from: &section, hostname: hostname)
        try section.checkForUnknownKeys()
        return settings
    }

    /// `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`; IPv6 hosts in brackets.
    static func parseBroker(_ entry: ConfigFile.Entry, in section: ConfigSection) throws(ConfigError) -> Broker {
        let url = entry.value
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
            throw section.error(entry, "'\(url)' is not a broker URL: \(usage)")
        }
        var authority = rest
        if authority.hasSuffix("/") { authority = authority.dropLast() }
        if authority.contains("@") {
            throw section.error(entry, "no credentials in the URL: use username and password-file")
        }
        if authority.contains("/") || authority.contains("?") || authority.contains("#") {
            throw section.error(entry, "'\(url)' has a path; MQTT brokers have none: \(usage)")
        }
        let parsed: HostPort
        do {
            // Not bare IPv6: the URL form brackets it.
            parsed = try HostPort.parse(String(authority), defaultPort: tls ? 8883 : 1883, allowsBareIPv6: false)
        } catch {
            switch error.code {
            case .unclosedBracket: throw section.error(entry, "'\(url)' has an unclosed '[' around an IPv6 address")
            case .textAfterBracket: throw section.error(entry, "'\(url)': \(usage)")
            case .noHost: throw section.error(entry, "'\(url)' has no host: \(usage)")
            case .badPort: throw section.error(entry, error.description)
            }
        }
        guard !parsed.host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw section.error(entry, "'\(url)' has no host: \(usage)")
        }
        return Broker(host: parsed.host, port: parsed.port, tls: tls)
    }

    /// `0-9`, `1,2,5`, `none`.
    static func parsePresets(_ entry: ConfigFile.Entry, in section: ConfigSection) throws(ConfigError) -> [Int] {
        if entry.value.lowercased() == "none" { return [] }
        var presets: [Int] = []
        for part in entry.value.split(whereSeparator: { $0 == "," || $0 == " " }) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]), let high = Int(bounds[bounds.count - 1]),
                  (0...9).contains(low), (0...9).contains(high), low <= high else {
                throw section.error(entry, "'\(part)' is not a preset number 0-9 or a range like 0-9 (or say none)")
            }
            for preset in low...high where !presets.contains(preset) { presets.append(preset) }
        }
        return presets.sorted()
    }
}

extension ConfigSection {
    /// The entry for `key` when it has a value; declares `key` as known.
    mutating func nonEmptyEntry(_ key: String) -> ConfigFile.Entry? {
        guard let entry = entry(key), !entry.value.isEmpty else { return nil }
        return entry
    }

    /// A `ConfigError` at `key`'s line, or at the section's header when the
    /// file does not set `key` (a missing or paired key).
    func error(at key: String, _ message: String) -> ConfigError {
        if let entry = entries.first(where: { $0.key == key }) { return error(entry, message) }
        return ConfigError(file: path, line: headerLine, key: "[\(name)] \(key)", message: message)
    }

    /// A whole number of seconds in `range`.
    func seconds(_ entry: ConfigFile.Entry, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        guard let seconds = Int(entry.value), range.contains(seconds) else {
            throw error(entry, "'\(entry.value)' must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return seconds
    }
}
