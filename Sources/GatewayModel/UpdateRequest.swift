/// One A/B update to install: a signed RAUC bundle at an http(s) URL, with
/// the SHA-256 of its bytes when known. Made by `update URL [SHA256]` on
/// any front end, or from the fleet's announcement (`<prefix>/all/update`);
/// validated here, once, so that the root helper that acts on it
/// (deploy/rauc/install-request) only ever sees what this allows.
public struct UpdateRequest: Sendable, Equatable {
    /// Why a URL, checksum or version is not acceptable.
    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public let url: String
    /// 64 lowercase hex digits; nil: RAUC's signature check only.
    public let sha256: String?
    /// The bundle's version when the announcement names it.
    public let version: String?

    /// The longest URL taken (the request file and curl's command line).
    public static let maximumURLLength = 2048

    public init(url: String, sha256: String? = nil, version: String? = nil) throws(Invalid) {
        guard url.utf8.count <= UpdateRequest.maximumURLLength else {
            throw Invalid(description: "the URL is longer than \(UpdateRequest.maximumURLLength) bytes")
        }
        let lowered = url.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw Invalid(description: "the URL must start with http:// or https:// (not '\(UpdateRequest.shown(url))')")
        }
        guard url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw Invalid(description: "the URL must be printable ASCII without spaces (percent-encode the rest)")
        }
        let host = url.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).first ?? ""
        guard !host.isEmpty else { throw Invalid(description: "the URL has no host") }
        if let sha256 {
            guard sha256.utf8.count == 64, sha256.allSatisfy(\.isHexDigit) else {
                throw Invalid(description: "the SHA-256 must be 64 hex digits (sha256sum prints it), not '\(UpdateRequest.shown(sha256))'")
            }
        }
        if let version {
            guard !version.isEmpty, version.count <= UpdateReport.maximumVersionLength,
                  version.allSatisfy({ $0.isASCII && $0 > " " && $0 != "\u{7F}" }) else {
                throw Invalid(description: "the version must be printable ASCII without spaces, at most \(UpdateReport.maximumVersionLength) characters")
            }
        }
        self.url = url
        self.sha256 = sha256?.lowercased()
        self.version = version
    }

    /// The request file the root helper reads (key=value lines; the URL is
    /// validated above, so no line break or space can reach it).
    public var fileText: String {
        var text = "url=\(url)\n"
        if let sha256 { text += "sha256=\(sha256)\n" }
        if let version { text += "version=\(version)\n" }
        return text
    }

    /// The URL as logs and replies show it: without a query or user info (either may hold a token).
    public var shownURL: String { UpdateRequest.shownURL(url) }

    /// `url` without its query, fragment and user info (`<...>` marks the cut).
    public static func shownURL(_ url: String) -> String {
        var shown = Substring(url)
        var cut = false
        if let query = shown.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            shown = shown[..<query]
            cut = true
        }
        // scheme:, "", [user[:password]@]host, path...
        var parts = shown.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        if parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty, let at = parts[2].lastIndex(of: "@") {
            parts[2] = parts[2][parts[2].index(after: at)...]
            shown = Substring(parts.joined(separator: "/"))
            cut = true
        }
        return cut ? shown + "<...>" : String(shown)
    }

    private static func shown(_ text: String) -> String {
        String(text.prefix(40).map { $0.isASCII && $0 >= " " && $0 != "\u{7F}" ? $0 : "?" })
    }
}

/// What the console, MQTT and the web interface can ask of the A/B
/// updater, without the core knowing how it reaches the root side.
public protocol UpdateControl: Sendable {
    /// Hands `request` to the root helper; the answer says what was asked.
    /// Throws a `GatewayError` when this box cannot update (no A/B updates)
    /// or an update is already under way.
    func install(_ request: UpdateRequest) async throws -> [String]
}
