/// Why the fleet connection does not work, with a stable code and a message
/// that says what happened, where, and what to do. Never contains a password.
public struct MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The broker URL, a file path or another setting is wrong.
        case configuration = "mqtt-configuration"
        /// The password file is missing, unreadable or not mode 0600.
        case passwordFile = "mqtt-password-file"
        /// The CA, certificate or key file cannot be used.
        case tlsFiles = "mqtt-tls-files"
        /// The TCP (or TLS) connection could not be made.
        case unreachable = "mqtt-unreachable"
        /// The broker refused the connection (CONNACK).
        case refused = "mqtt-refused"
        /// An established connection was lost without a word from the broker.
        case connectionLost = "mqtt-connection-lost"
        /// The broker ended the connection and said why (an MQTT 5 DISCONNECT
        /// reason: shutting down, busy, keep-alive timeout...).
        case brokerDisconnected = "mqtt-broker-disconnected"
        /// Another client with our client id took the connection over (MQTT 5 reason 0x8E).
        case sessionTakenOver = "mqtt-session-taken-over"
        /// Something listens on the broker's port but does not answer MQTT.
        case notMQTT = "mqtt-not-a-broker"
        /// No CONNACK within the connect timeout.
        case timeout = "mqtt-timeout"
        /// libmosquitto is not installed (it is loaded when [mqtt] first connects).
        case library = "mqtt-library"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
