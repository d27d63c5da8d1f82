/// Which command lines carry a secret (`creds STRING`), wherever they are
/// typed or received: the console, the demo, and later MQTT. Their argument
/// is never echoed, logged or repeated in a reply.
public enum SecretCommand {
    /// The command words whose argument is a secret.
    public static let words: Set<String> = ["creds", "credentials"]

    /// Whether `line` is a secret-carrying command with an argument.
    public static func isSecret(_ line: String) -> Bool {
        let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        return parts.count == 2 && words.contains(parts[0].lowercased())
    }

    /// The line as it may be repeated back: `creds <hidden>` (not even the length shows).
    public static func redacted(_ line: String) -> String {
        guard isSecret(line), let word = line.split(separator: " ", maxSplits: 1).first else { return line }
        return "\(word) <hidden>"
    }
}
