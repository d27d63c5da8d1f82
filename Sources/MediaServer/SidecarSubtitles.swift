#if canImport(Glibc)
import Glibc
#endif

/// A WebVTT file next to a media file: `NAME.vtt` or `NAME.LANG.vtt`.
public struct SidecarSubtitle: Sendable, Equatable {
    /// Absolute path of the .vtt file.
    public var path: String
    /// Filled by `MediaServer.media(forLocalPath:)`.
    public var url: String?
    /// BCP 47 tag from the file name (`en`, `pt-BR`), or nil for `NAME.vtt`.
    public var language: String?
    /// A name for the track menu: the language's English name, or the tag.
    public var name: String
}

/// Finds sidecar subtitles; the matching itself is pure (`match`).
public enum SidecarSubtitles {
    /// The subtitles next to `mediaPath`: `NAME.vtt` first, then
    /// `NAME.LANG.vtt` by language tag.
    public static func find(forMediaFile mediaPath: String) -> [SidecarSubtitle] {
        guard let slash = mediaPath.lastIndex(of: "/") else { return [] }
        let directory = String(mediaPath[..<slash])
        let fileName = String(mediaPath[mediaPath.index(after: slash)...])
        guard let dir = opendir(directory.isEmpty ? "/" : directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasSuffix(".vtt") || name.hasSuffix(".VTT") { names.append(name) }
            if names.count > 1000 { break }
        }
        return match(mediaFileName: fileName, candidates: names).map { match in
            SidecarSubtitle(path: directory + "/" + match.fileName, url: nil, language: match.language,
                            name: match.language.map(languageName) ?? "Subtitles")
        }
    }

    /// Which of `candidates` (file names in the same directory) belong to
    /// `mediaFileName`, with their language tags, in presentation order.
    public static func match(mediaFileName: String, candidates: [String]) -> [(fileName: String, language: String?)] {
        guard let dot = mediaFileName.lastIndex(of: "."), dot != mediaFileName.startIndex else { return [] }
        let stem = String(mediaFileName[..<dot])
        var plain: [(String, String?)] = []
        var tagged: [(String, String?)] = []
        for candidate in candidates where candidate != mediaFileName {
            guard candidate.lowercased().hasSuffix(".vtt"), candidate.hasPrefix(stem) else { continue }
            let middle = candidate.dropFirst(stem.count).dropLast(4)
            if middle.isEmpty {
                plain.append((candidate, nil))
            } else if middle.first == ".", isLanguageTag(middle.dropFirst()) {
                tagged.append((candidate, String(middle.dropFirst())))
            }
        }
        tagged.sort { ($0.1 ?? "") < ($1.1 ?? "") }
        return (plain + tagged).map { (fileName: $0.0, language: $0.1) }
    }

    /// `en`, `deu`, `pt-BR`, `zh-Hant`: a 2-3 letter language and optional
    /// 2-8 character subtags.
    static func isLanguageTag(_ text: Substring) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count),
              language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
        }
    }

    static let names: [String: String] = [
        "ar": "Arabic", "cs": "Czech", "da": "Danish", "de": "German", "el": "Greek", "en": "English",
        "es": "Spanish", "fi": "Finnish", "fr": "French", "he": "Hebrew", "hi": "Hindi", "hu": "Hungarian",
        "it": "Italian", "ja": "Japanese", "ko": "Korean", "nl": "Dutch", "no": "Norwegian", "nb": "Norwegian",
        "pl": "Polish", "pt": "Portuguese", "ro": "Romanian", "ru": "Russian", "sv": "Swedish", "th": "Thai",
        "tr": "Turkish", "uk": "Ukrainian", "vi": "Vietnamese", "zh": "Chinese",
    ]

    /// `en` -> English, `pt-BR` -> Portuguese (pt-BR); unknown tags as they are.
    static func languageName(_ tag: String) -> String {
        let primary = tag.split(separator: "-").first.map { $0.lowercased() } ?? tag
        guard let name = names[primary] else { return tag }
        return tag.contains("-") ? "\(name) (\(tag))" : name
    }
}
