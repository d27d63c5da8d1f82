extension WebPages {
    /// What came of a submitted config: shown under the editor.
    enum ConfigOutcome: Equatable {
        case checked
        case applied
        /// check-config's first problem (`FILE:LINE: [section] key: message`), or why nothing could be done.
        case problem(String)
    }

    /// The config editor: the file's text (secrets as `********`) in a
    /// textarea, Check and Apply, and the outcome of the last submission right
    /// under the text, which names it (`aria-describedby`).
    static func config(csrf: String, path: String, text: String, outcome: ConfigOutcome?) -> String {
        var result = ""
        switch outcome {
        case nil: result = "<p id=\"config-result\" role=\"status\"></p>\n"
        case .checked:
            result = "<p id=\"config-result\" class=\"ok\" role=\"status\">No problems found. Nothing was written yet: Apply writes it.</p>\n"
        case .applied:
            result = "<p id=\"config-result\" class=\"ok\" role=\"status\">Applied: written to \(HTMLEscape.escape(path)) "
                + "and reloaded by the gateway (as systemctl reload does).</p>\n"
        case .problem(let problem):
            result = "<p id=\"config-result\" class=\"message\" role=\"alert\">Not applied: \(HTMLEscape.escape(problem))</p>\n"
        }
        let body = header(csrf: csrf, current: "/config") + """
            <main class="wide">
            <h2 id="config-heading">Configuration</h2>
            <p>The file \(HTMLEscape.escape(path)). Secret values show as \(ConfigRedaction.mask); a line left with \
            \(ConfigRedaction.mask) keeps its value. Check runs the checks of <code>cast-gateway check-config</code>; \
            Apply also writes the file and reloads it.</p>
            <form method="post" action="/config" id="config-form">
            \(csrfField(csrf))
            <label for="config-text">Contents of \(HTMLEscape.escape(path))</label>
            <textarea id="config-text" name="text" spellcheck="false" autocapitalize="off" autocomplete="off" \
            aria-describedby="config-result">
            \(HTMLEscape.escape(text))</textarea>
            \(result)<div class="buttons">
            <button type="submit" name="action" value="check">Check</button>
            <button type="submit" name="action" value="apply">Apply</button>
            </div>
            </form>
            </main>
            """
        return document(title: "cast-gateway: configuration", body: body)
    }
}
