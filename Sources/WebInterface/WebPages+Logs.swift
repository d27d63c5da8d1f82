extension WebPages {
    /// The daemon's recent log, newest last, escaped, with a download link.
    static func logs(csrf: String, lines: [String]) -> String {
        let text = lines.isEmpty ? "(nothing logged yet)" : lines.map(HTMLEscape.escape).joined(separator: "\n")
        let body = header(csrf: csrf, current: "/logs") + """
            <main class="wide">
            <h2 id="logs-heading">Recent log</h2>
            <p>The gateway's last \(lines.count) log lines (at most 500 or 64 KiB), newest last. \
            <a href="/logs.txt" download="cast-gateway-log.txt" id="download-logs">Download logs</a> \
            for a support case. <a href="/logs">Reload</a></p>
            <pre class="log" id="log" tabindex="0" aria-labelledby="logs-heading">\(text)</pre>
            </main>
            """
        return document(title: "cast-gateway: log", body: body)
    }
}
