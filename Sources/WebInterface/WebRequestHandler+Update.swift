import Commands
import Configuration
import GatewayModel

extension WebRequestHandler {
    /// POST /update: `update latest` (the bundle the fleet announces) or
    /// `update URL [SHA256]` from the Software section's form, checked by
    /// `UpdateRequest` as every front end's is. The box's own root helper
    /// does the rest; the page follows it in `/api/state`'s `software`.
    func updateSubmitted(_ request: WebRequest) -> WebResponse {
        guard let software = software() else { return page(404, WebPages.message("Not found", "There is no such page.")) }
        guard software.updates else {
            return text(409, "not requested: this box is not an A/B image (or [update] from-fleet = no); update it with its package (deploy/install)\n")
        }
        let command: GatewayCommand
        if request.form["latest"] != nil {
            command = .update(.latest)
        } else {
            let url = (request.form["url"] ?? "").trimmingSpaces()
            let sha256 = (request.form["sha256"] ?? "").trimmingSpaces()
            do {
                command = .update(.install(try UpdateRequest(url: url, sha256: sha256.isEmpty ? nil : sha256)))
            } catch {
                return text(400, "not requested: \(error)\n")
            }
        }
        guard submit(command) else {
            logger.warning("web update request dropped: the gateway has not yet taken the earlier commands")
            return WebResponse(status: 503, headers: [("Retry-After", "1"), ("Content-Type", "text/plain; charset=utf-8")],
                               body: Array("busy; try again\n".utf8))
        }
        guard request.requestedWith == "fetch" else { return redirect("/") }
        return text(202, "requested: the box downloads and checks the bundle, installs it into its other slot and reboots; the progress shows here\n")
    }

    private func text(_ status: Int, _ body: String) -> WebResponse {
        WebResponse(status: status, contentType: "text/plain; charset=utf-8", text: body)
    }
}
