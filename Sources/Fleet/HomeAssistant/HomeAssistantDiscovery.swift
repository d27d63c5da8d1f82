import JSON

/// Home Assistant MQTT discovery: retained config messages, one per entity,
/// on `<ha-prefix>/<component>/<node_id>/<object_id>/config`, all sharing one
/// `device` block, so each room appears as one device with its entities.
/// Entities read the retained state topic through `value_template` and send
/// console command lines to the room's `cmd` topic. Nothing to install or
/// write on the Home Assistant side.
///
/// Entities that need the receiver are available only while the gateway is
/// online *and* its Cast link is up (two availability topics, mode `all`);
/// the box's own (link, problem, device choice, TV, keys) only need the
/// gateway.
public enum HomeAssistantDiscovery {
    /// The config messages (retained, QoS 1) for `settings` and `context`;
    /// `devices`: the Cast devices to offer in the device select;
    /// `kioskItems`: the names of the kiosk's items, offered in the `Play` select.
    public static func messages(settings: FleetSettings, context: HomeAssistantContext = HomeAssistantContext(), version: String,
                                devices: [String] = [], kioskItems: [String] = []) -> [MQTTMessage] {
        let topics = settings.topics
        let node = nodeID(settings)
        func available(_ topic: String) -> JSONValue {
            ["topic": .string(topic), "payload_available": "online", "payload_not_available": "offline"]
        }
        var deviceInfo: JSONObject = [
            "identifiers": [.string(node)],
            "name": .string(settings.room),
            "manufacturer": "cast-gateway",
            "model": .string(context.model),
            "sw_version": .string(version),
        ]
        if let hardware = context.hardwareVersion { deviceInfo["hw_version"] = .string(hardware) }
        deviceInfo["suggested_area"] = .string(settings.area ?? settings.room)
        if let url = context.configurationURL { deviceInfo["configuration_url"] = .string(url) }
        let device = JSONValue.object(deviceInfo)
        let origin: JSONValue = ["name": "cast-gateway", "sw_version": .string(version)]
        enum Needs { case gateway, receiver }
        func entity(_ component: String, _ object: String, needs: Needs, _ members: [(String, JSONValue)]) -> MQTTMessage {
            var config = JSONObject()
            config["unique_id"] = .string("\(node)_\(object)")
            for (key, value) in members { config[key] = value }
            switch needs {
            case .gateway:
                config["availability"] = [available(topics.availability)]
            case .receiver:
                config["availability"] = [available(topics.availability), available(topics.link)]
                config["availability_mode"] = "all"
            }
            config["device"] = device
            config["origin"] = origin
            return MQTTMessage(topic: "\(settings.haPrefix)/\(component)/\(node)/\(object)/config",
                               payload: JSONValue.object(config).serializedBytes, qos: 1, retain: true)
        }
        func button(_ object: String, _ name: String, _ command: String, _ icon: String) -> MQTTMessage {
            entity("button", object, needs: .receiver, [("name", .string(name)), ("command_topic", .string(topics.command)),
                                                        ("payload_press", .string(command)), ("qos", 1), ("icon", .string(icon))])
        }
        let state = JSONValue.string(topics.state)
        func toggle(_ object: String, _ name: String, needs: Needs, on: String, off: String, _ template: String, _ icon: String) -> MQTTMessage {
            entity("switch", object, needs: needs, [
                ("name", .string(name)),
                ("command_topic", .string(topics.command)),
                ("payload_on", .string(on)), ("payload_off", .string(off)),
                ("state_topic", state),
                ("value_template", .string(template)),
                ("state_on", "ON"), ("state_off", "OFF"),
                ("qos", 1), ("icon", .string(icon)),
            ])
        }
        /// A select whose state is `member` when that is one of `options`, else none.
        func select(_ object: String, _ name: String, needs: Needs, command: String, member: String, options: [String],
                    _ icon: String) -> MQTTMessage {
            let list = JSONValue.array(options.map(JSONValue.string))
            return entity("select", object, needs: needs, [
                ("name", .string(name)),
                ("command_topic", .string(topics.command)),
                ("command_template", .string(command)),
                ("state_topic", state),
                ("value_template", .string("{{ \(member) if \(member) in \(list.serialized) else 'None' }}")),
                ("options", list),
                ("qos", 1), ("icon", .string(icon)),
            ])
        }
        func sensor(_ object: String, _ name: String, _ template: String, _ icon: String,
                    extra: [(String, JSONValue)] = []) -> MQTTMessage {
            entity("sensor", object, needs: .receiver, [("name", .string(name)), ("state_topic", state),
                                                        ("value_template", .string(template))] + extra + [("icon", .string(icon))])
        }
        // Text sensors say "unknown" for nothing (Home Assistant's own word);
        // numeric ones take "None".
        func text(_ member: String) -> String {
            "{{ value_json.\(member)[:255] if value_json.\(member) else 'unknown' }}"
        }
        var messages = [
            entity("binary_sensor", "connectivity", needs: .gateway, [
                ("name", "Receiver link"), ("state_topic", state),
                ("value_template", "{{ 'ON' if value_json.link == 'connected' else 'OFF' }}"),
                ("device_class", "connectivity"), ("entity_category", "diagnostic"),
            ]),
            entity("binary_sensor", "problem", needs: .gateway, [
                ("name", "Problem"), ("state_topic", state),
                ("value_template", "{{ 'ON' if value_json.problem else 'OFF' }}"),
                ("json_attributes_topic", state),
                ("json_attributes_template", "{{ {'problem': value_json.problem, 'problems': value_json.problems} | tojson }}"),
                ("device_class", "problem"), ("entity_category", "diagnostic"),
            ]),
            sensor("state", "Player", "{{ value_json.activity }}", "mdi:cast", extra: [("json_attributes_topic", state)]),
            sensor("title", "Title", text("title"), "mdi:movie-open"),
            sensor("app", "App", text("app"), "mdi:application"),
            sensor("position", "Position", "{{ value_json.position if value_json.position is not none else 'None' }}", "mdi:timer-play", extra: [
                ("device_class", "duration"), ("unit_of_measurement", "s"),
                ("json_attributes_topic", state),
                ("json_attributes_template", "{{ {'position_updated_at': value_json.positionUpdatedAt} | tojson }}"),
            ]),
            sensor("duration", "Duration", "{{ value_json.duration if value_json.duration is not none else 'None' }}", "mdi:timer",
                   extra: [("device_class", "duration"), ("unit_of_measurement", "s")]),
            button("play_pause", "Play/Pause", "toggle", "mdi:play-pause"),
            button("play", "Play", "play", "mdi:play"),
            button("pause", "Pause", "pause", "mdi:pause"),
            button("stop", "Stop", "stop", "mdi:stop"),
            button("next", "Next", "next", "mdi:skip-next"),
            button("previous", "Previous", "prev", "mdi:skip-previous"),
            entity("number", "volume", needs: .receiver, [
                ("name", "Volume"),
                ("command_topic", .string(topics.command)),
                ("command_template", "vol {{ value | int }}"),
                ("state_topic", state),
                ("value_template", "{{ value_json.volume if value_json.volume is not none else 'None' }}"),
                ("min", 0), ("max", 100), ("step", 1), ("mode", "slider"), ("unit_of_measurement", "%"),
                ("qos", 1), ("icon", "mdi:volume-high"),
            ]),
            toggle("mute", "Mute", needs: .receiver, on: "mute on", off: "mute off",
                   "{{ 'ON' if value_json.muted else 'OFF' }}", "mdi:volume-off"),
        ]
        let presets = presetsShown(settings: settings, context: context)
        for preset in presets {
            messages.append(button("preset_\(preset.number)", preset.name, "preset \(preset.number)", "mdi:numeric-\(preset.number)-box"))
        }
        let options = PlayOption.options(presets: presets, kioskItems: kioskItems)
        if !options.isEmpty {
            // The option's name picks its command (a preset, a kiosk item); the state names the one playing.
            let commands = JSONValue.object(JSONObject(options.map { (key: $0.name, value: JSONValue.string($0.command)) }))
            messages.append(select("source", "Play", needs: .receiver, command: "{{ \(commands.serialized)[value] }}",
                                   member: "value_json.selection", options: options.map(\.name), "mdi:playlist-play"))
        }
        let deviceNames = optionNames(devices)
        if !deviceNames.isEmpty {
            messages.append(select("device", "Cast device", needs: .gateway, command: "use {{ value }}",
                                   member: "value_json.device.name", options: deviceNames, "mdi:cast-connected"))
        }
        if context.tv {
            messages.append(toggle("tv_power", "TV power", needs: .gateway, on: "tv on", off: "tv standby",
                                   "{{ 'None' if not value_json.tv or value_json.tv.power is none else ('ON' if value_json.tv.power == 'on' else 'OFF') }}",
                                   "mdi:television"))
            messages.append(entity("sensor", "tv_input", needs: .gateway, [
                ("name", "TV input"), ("state_topic", state),
                ("value_template", "{{ value_json.tvInput if value_json.tvInput else 'unknown' }}"),
                ("icon", "mdi:video-input-hdmi"),
            ]))
        }
        if context.updates {
            // installed_version from the room's state, latest_version from the
            // fleet's announcement; Install sends `update latest`. in_progress
            // and update_percentage are read by Home Assistant 2024.11 and later
            // (2024.3 ignores them).
            let active = "value_json.updateProgress is not none and value_json.updateProgress.state in ['requested', 'downloading', 'verifying', 'installing']"
            messages.append(entity("update", "firmware", needs: .gateway, [
                ("name", "Firmware"),
                ("state_topic", state),
                ("value_template", .string("{{ {'installed_version': value_json.version, 'in_progress': \(active), "
                    + "'update_percentage': value_json.updateProgress.percent if \(active) else none} | tojson }}")),
                ("latest_version_topic", .string(topics.updateOffer)),
                ("latest_version_template", "{{ value_json.version }}"),
                ("command_topic", .string(topics.command)),
                ("payload_install", "update latest"),
                ("title", "cast-gateway"),
                ("device_class", "firmware"), ("entity_category", "config"),
                ("qos", 1),
            ]))
        }
        if !context.keySources.isEmpty {
            messages.append(entity("event", "remote_key", needs: .gateway, [
                ("name", "Remote key"), ("state_topic", .string(topics.keyEvents)),
                ("event_types", .array(context.eventTypes.map(JSONValue.string))),
                ("device_class", "button"), ("icon", "mdi:remote"),
            ]))
            for key in context.triggerKeys {
                var config = JSONObject()
                config["automation_type"] = "trigger"
                config["topic"] = .string(topics.keyEvents)
                config["value_template"] = "{{ value_json.event_type if not value_json.held else '' }}"
                config["payload"] = .string(key)
                config["type"] = "button_short_press"
                config["subtype"] = .string(key)
                config["device"] = device
                config["origin"] = origin
                messages.append(MQTTMessage(topic: "\(settings.haPrefix)/device_automation/\(node)/trigger_\(key.lowercased())/config",
                                            payload: JSONValue.object(config).serializedBytes, qos: 1, retain: true))
            }
        }
        return messages
    }

    /// The presets that get a button: the configured ones, or those of them `ha-presets` names.
    static func presetsShown(settings: FleetSettings, context: HomeAssistantContext) -> [HomeAssistantContext.Preset] {
        guard let chosen = settings.haPresets else { return context.presets }
        return context.presets.filter { chosen.contains($0.number) }
    }

    /// Option names, made unique (a second "News" becomes "News (2)").
    static func optionNames(_ names: [String]) -> [String] {
        var seen: [String: Int] = [:], result: [String] = []
        for name in names where !name.isEmpty {
            let count = (seen[name] ?? 0) + 1
            seen[name] = count
            result.append(count == 1 ? name : "\(name) (\(count))")
        }
        return result
    }

    /// The `node_id` and device identifier: prefix and room, with every
    /// character outside [a-zA-Z0-9_-] replaced by `_` (what Home Assistant
    /// allows) and, when that changed anything, a short hash of the raw
    /// text, so `1.01` and `1_01` (or `hotel/castgw` and `hotel_castgw`)
    /// stay two devices.
    public static func nodeID(_ settings: FleetSettings) -> String {
        let raw = "\(settings.topicPrefix)_\(settings.room)"
        let cleaned = legacyNodeID(settings)
        return cleaned == raw ? raw : "\(cleaned)_\(shortHash(raw))"
    }

    /// The node id before hashes were added (the characters replaced only):
    /// its configs are removed where it differs from today's.
    public static func legacyNodeID(_ settings: FleetSettings) -> String {
        let raw = "\(settings.topicPrefix)_\(settings.room)"
        return String(raw.unicodeScalars.map { scalar -> Character in
            let allowed = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == "-"
            return allowed ? Character(scalar) : "_"
        })
    }

    /// 8 hex digits of FNV-1a over the UTF-8 bytes: stable across releases and machines.
    static func shortHash(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Home Assistant announces itself here (`online`) after it starts.
    public static func statusTopic(_ settings: FleetSettings) -> String { "\(settings.haPrefix)/status" }

    /// Every retained config under `node` (to find the ones no longer announced).
    public static func configFilter(settings: FleetSettings, node: String) -> [String] {
        ["\(settings.haPrefix)/+/\(node)/+/config"]
    }
}
