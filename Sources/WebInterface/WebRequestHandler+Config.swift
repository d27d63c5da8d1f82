#if canImport(Glibc)
import Glibc
#endif
import Configuration
import SystemSupport

/// The config editor: `GET /config` shows the file with its secrets as
/// `********`; `POST /config` checks the edited text with check-config's
/// checks (`action=check`) or also writes it atomically and starts the live
/// reload (`action=apply`). The text sent back to the browser is always the
/// browser's own or the redacted file, never the file with its secrets.
/// Runs on libmicrohttpd's thread, where reading and fsyncing may block.
extension WebRequestHandler {
    func configPage(_ session: WebSessions.Session) -> WebResponse {
        guard let config else { return page(404, WebPages.message("Not found", "This gateway has no config file to edit.")) }
        switch readConfig(config) {
        case .success(let text):
            return page(200, WebPages.config(csrf: session.csrf, path: config.path, text: ConfigRedaction.redact(text), outcome: nil))
        case .failure(let problem):
            return page(500, WebPages.config(csrf: session.csrf, path: config.path, text: "", outcome: .problem(problem.message)))
        }
    }

    func configSubmitted(_ request: WebRequest, _ session: WebSessions.Session) -> WebResponse {
        guard let config else { return page(404, WebPages.message("Not found", "This gateway has no config file to edit.")) }
        let form = request.form
        // Browsers send a textarea's line ends as CRLF.
        let edited = (form["text"] ?? "").replacingCRLF()
        let applying = form["action"] == "apply"
        func answer(_ status: Int, _ outcome: WebPages.ConfigOutcome, text: String = edited) -> WebResponse {
            page(status, WebPages.config(csrf: session.csrf, path: config.path, text: text, outcome: outcome))
        }
        guard edited.utf8.count <= WebConfigFile.maximumSize else {
            return answer(413, .problem("the text is longer than \(WebConfigFile.maximumSize / 1024) KiB; nothing was written"))
        }
        let original: String
        switch readConfig(config) {
        case .success(let text): original = text
        case .failure(let problem): return answer(500, .problem(problem.message))
        }
        let full: String
        do {
            full = try ConfigRedaction.restore(edited, original: original, path: config.path)
        } catch {
            return answer(422, .problem("\(error)"))
        }
        if let problem = config.check(full) {
            logger.notice("config from the web page not \(applying ? "applied" : "accepted"): \(problem)")
            return answer(422, .problem(problem))
        }
        guard applying else { return answer(200, .checked) }
        let mode = FileSystem.permissions(of: config.path).map { mode_t($0) } ?? 0o600
        do {
            try FileSystem.writeAtomically(config.path, bytes: Array(full.utf8), mode: mode)
        } catch {
            logger.error("config from the web page not written: \(error)")
            return answer(500, .problem("cannot write \(config.path): \(error); the running configuration stays"))
        }
        logger.notice("config written from the web page to \(config.path); reloading")
        config.reload()
        return answer(200, .applied, text: ConfigRedaction.redact(full))
    }

    private func readConfig(_ config: WebConfigFile) -> Result<String, ReadProblem> {
        do {
            return .success(try FileSystem.readText(config.path, limit: WebConfigFile.maximumSize))
        } catch {
            return .failure(ReadProblem(message: "cannot read \(config.path): \(error)"))
        }
    }
}

private struct ReadProblem: Error {
    let message: String
}

extension String {
    /// `\r\n` as `\n` (a textarea's form value uses CRLF).
    func replacingCRLF() -> String {
        var output = ""
        output.reserveCapacity(utf8.count)
        for character in self { if character == "\r\n" { output.append("\n") } else { output.append(character) } }
        return output
    }
}
