import JSON

/// Home Assistant MQTT discovery: retained config messages, one per entity,
/// on `<ha-prefix>/<component>/<node_id>/<object_id>/config`, all sharing one
/// `device` block, so each room appears as one device with its entities.
/// Entities read the retained state topic through `value_template` and send
/// console command lines to the room's `cmd` topic. Nothing to install or
/// write on the Home Assistant side.
public enum HomeAssistantDiscovery {
    /// The config messages (retained, QoS 1) for `settings`.
    public static func messages(settings: FleetSettings, version: String) -> [MQTTMessage] {
        let topics = settings.topics
        let node = nodeID(settings)
        let common: [(String, JSONValue)] = [
            ("availability_topic", .string(topics.availability)),
            ("payload_available", "online"),
            ("payload_not_available", "offline"),
            ("device", [
                "identifiers": [.string(node)],
                "name": .string(settings.room),
                "manufacturer": "cast-gateway",
                "model": "cast-gateway",
                "sw_version": .string(version),
            ]),
            ("origin", ["name": "cast-gateway", "sw_version": .string(version)]),
        ]
        func entity(_ component: String, _ object: String, _ members: [(String, JSONValue)]) -> MQTTMessage {
            var config = JSONObject()
            config["unique_id"] = .string("\(node)_\(object)")
            for (key, value) in members + common { config[key] = value }
            return MQTTMessage(topic: "\(settings.haPrefix)/\(component)/\(node)/\(object)/config",
                               payload: JSONValue.object(config).serializedBytes, qos: 1, retain: true)
        }
        func button(_ object: String, _ name: String, _ command: String, _ icon: String) -> MQTTMessage {
            entity("button", object, [("name", .string(name)), ("command_topic", .string(topics.command)),
                                      ("payload_press", .string(command)), ("qos", 1), ("icon", .string(icon))])
        }
        var messages = [
            entity("sensor", "state", [
                ("name", "State"),
                ("state_topic", .string(topics.state)),
                ("value_template", "{{ value_json.player if value_json.link == 'connected' else value_json.link }}"),
                ("json_attributes_topic", .string(topics.state)),
                ("icon", "mdi:cast"),
            ]),
            button("play", "Play", "play", "mdi:play"),
            button("pause", "Pause", "pause", "mdi:pause"),
            button("stop", "Stop", "stop", "mdi:stop"),
            button("next", "Next", "next", "mdi:skip-next"),
            button("previous", "Previous", "prev", "mdi:skip-previous"),
            entity("number", "volume", [
                ("name", "Volume"),
                ("command_topic", .string(topics.command)),
                ("command_template", "vol {{ value | int }}"),
                ("state_topic", .string(topics.state)),
                ("value_template", "{{ value_json.volume if value_json.volume is not none else 0 }}"),
                ("min", 0), ("max", 100), ("step", 1), ("mode", "slider"), ("unit_of_measurement", "%"),
                ("qos", 1), ("icon", "mdi:volume-high"),
            ]),
            entity("switch", "mute", [
                ("name", "Mute"),
                ("command_topic", .string(topics.command)),
                ("payload_on", "mute on"), ("payload_off", "mute off"),
                ("state_topic", .string(topics.state)),
                ("value_template", "{{ 'ON' if value_json.muted else 'OFF' }}"),
                ("state_on", "ON"), ("state_off", "OFF"),
                ("qos", 1), ("icon", "mdi:volume-off"),
            ]),
        ]
        for preset in settings.haPresets {
            messages.append(button("preset_\(preset)", "Preset \(preset)", "preset \(preset)", "mdi:numeric-\(preset)-box"))
        }
        return messages
    }

    /// The `node_id` and device identifier: prefix and room with every
    /// character outside [a-zA-Z0-9_-] replaced by `_`, as HA requires.
    public static func nodeID(_ settings: FleetSettings) -> String {
        let raw = "\(settings.topicPrefix)_\(settings.room)"
        return String(raw.unicodeScalars.map { scalar -> Character in
            let allowed = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == "-"
            return allowed ? Character(scalar) : "_"
        })
    }

    /// Home Assistant announces itself here (`online`) after it starts;
    /// the configs are then sent again in case the broker lost them.
    public static func statusTopic(_ settings: FleetSettings) -> String { "\(settings.haPrefix)/status" }
}
