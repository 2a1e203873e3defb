import NIOHTTP1

/// One response and how to send it, faults included: built by `OriginRouter` (pure),
/// carried out by `OriginHTTPHandler` on the event loop.
struct ResponsePlan {
    /// How the body is delivered.
    enum Delivery: Equatable {
        /// All of `body`, then the end of the response.
        case whole
        /// `afterBytes` of the body, then close the connection (truncation).
        case cut(afterBytes: Int)
        /// `afterBytes`, then nothing for `duration`, then the rest; nil waits forever.
        case stall(afterBytes: Int, duration: Duration?)
    }

    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    /// The bytes to send; empty for HEAD.
    var body: [UInt8]
    var delivery: Delivery = .whole
    /// Wait before the response head (added time to first byte).
    var delay: Duration?
    /// Close the connection once the response is out (wrong length, 413, no keep-alive).
    var closeAfter = false
    /// The fault rule that fired, if any.
    var faultRuleID: String?

    init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: [UInt8] = [], contentType: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        if let contentType { self.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        self.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
    }

    /// A short plain-text error answer.
    static func error(_ status: HTTPResponseStatus, _ message: String? = nil) -> ResponsePlan {
        ResponsePlan(
            status: status, body: Array((message ?? status.reasonPhrase).utf8) + [0x0A],
            contentType: "text/plain; charset=utf-8")
    }

    /// Applies a fault decided for this request (`.malformedPlaylist` is applied earlier,
    /// on the resource, by the router).
    mutating func apply(_ decision: FaultDecision, isHead: Bool) {
        faultRuleID = decision.ruleID
        switch decision.fault {
        case .status(let code, _):
            let plan = ResponsePlan.error(HTTPResponseStatus(statusCode: code))
            status = plan.status
            headers = plan.headers
            body = isHead ? [] : plan.body
            if let retryAfter = decision.fault.retryAfterHeaderValue {
                headers.replaceOrAdd(name: "Retry-After", value: retryAfter)
            }
        case .truncateBody(let n):
            delivery = .cut(afterBytes: n)
        case .wrongContentLength(let delta):
            let declared = max(0, (Int(headers.first(name: "Content-Length") ?? "") ?? body.count) + delta)
            headers.replaceOrAdd(name: "Content-Length", value: String(declared))
            closeAfter = true
        case .stallBody(let n, let duration):
            delivery = .stall(afterBytes: n, duration: duration)
        case .malformedPlaylist:
            break
        case .addedTimeToFirstByte(let duration):
            delay = duration
        case .captivePortal:
            let page = ResponsePlan(
                status: .ok, body: Array(HTTPFault.captivePortalPage.utf8), contentType: "text/html; charset=utf-8")
            status = page.status
            headers = page.headers
            headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
            body = isHead ? [] : page.body
            delivery = .whole
        }
    }
}
