import Foundation
import WebInterface
import XCTest

/// Logs in to `handler` and returns the session cookie and its CSRF token
/// (from the status page's form field), as a browser would have them.
func logIn(_ handler: WebRequestHandler, password: String = "right password") throws -> (cookie: String, csrf: String) {
    let body = "password=" + password.replacingOccurrences(of: " ", with: "+")
    let response = handler.respond(to: WebRequest(method: "POST", target: "/login", contentType: "application/x-www-form-urlencoded",
                                                  body: Array(body.utf8)))
    let cookie = String(try XCTUnwrap(response.header("Set-Cookie"), "logged in").split(separator: ";")[0])
    let page = handler.respond(to: WebRequest(method: "GET", target: "/", cookie: cookie)).text
    let start = try XCTUnwrap(page.range(of: #"name="csrf" value=""#)).upperBound
    return (cookie, String(page[start...].prefix { $0 != "\"" }))
}
