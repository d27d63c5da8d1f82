import JSON
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
    /// Where it came in the order a connection received its messages (set by
    /// the channel; 0 otherwise). A reply applied after a newer broadcast
    /// (they are consumed by different tasks) is known to be older by it.
    public var arrival: UInt64 = 0

    public init(json: JSONValue, arrival: UInt64 = 0) {
        self.arrival = arrival
        body = json
        type = json["type"]?.stringValue ?? json["responseType"]?.stringValue ?? ""
        let id = json["requestId"]?.intValue ?? json["launchRequestId"]?.intValue
        requestID = (id == 0) ? nil : id
    }

    /// `reason` of error replies (LAUNCH_ERROR, INVALID_REQUEST, LOAD_FAILED, ...).
    public var reason: String? { body["reason"]?.stringValue }
}
