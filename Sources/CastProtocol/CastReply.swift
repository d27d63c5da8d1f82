/// The envelope every JSON message shares: its `type` and request id.
///
/// Replies are matched to requests by `requestId`, or by `launchRequestId`
/// for launch progress; broadcasts carry request id 0 or none.
public struct CastReply: Sendable, Equatable {
    /// `type` (or `responseType`, used by GET_APP_AVAILABILITY replies).
    public let type: String
    /// The request this answers; nil or 0 for unsolicited messages.
    public let requestID: Int?
    public let body: JSONValue

    public init(json: JSONValue) {
        body = json
        type = json["type"]?.stringValue ?? json["responseType"]?.stringValue ?? ""
        let id = json["requestId"]?.intValue ?? json["launchRequestId"]?.intValue
        requestID = (id == 0) ? nil : id
    }

    /// `reason` of error replies (LAUNCH_ERROR, INVALID_REQUEST, LOAD_FAILED, ...).
    public var reason: String? { body["reason"]?.stringValue }
}
