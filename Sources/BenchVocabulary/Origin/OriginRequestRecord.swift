/// One request the origin answered (or began to answer), as the request log keeps it.
///
/// Made by the connection's handler on its event loop when the response ends — sent in
/// full, cut short by a fault, or abandoned because the connection closed — then handed
/// to the server's sink and appended to `OriginServer.requestLog`.
public struct OriginRequestRecord: Sendable, Hashable, Codable {
    /// Which connection (numbered from 1 in accept order) carried the request.
    public var connectionID: UInt64
    /// The interface the request came through, from the connection's PROXY header
    /// (`OriginConfiguration.interfaces`); nil for a direct connection.
    public var interface: String?
    /// The client address the PROXY header named (`"host:port"`), if any.
    public var proxySource: String?
    /// Request method, e.g. `GET`; `-` when the request could not be parsed (status 400)
    /// or its head did not arrive in full within `OriginConfiguration.requestTimeout` (408).
    public var method: String
    /// Request target as sent (path and query); `-` when the method is.
    public var path: String
    /// The `Range` header, if any.
    public var range: String?
    /// Status code sent.
    public var status: Int
    /// Body bytes written to the socket.
    public var bytesSent: Int
    /// When the request head arrived (`OriginConfiguration.clock`).
    public var startedAtNanoseconds: UInt64
    /// From the request head to the response head being written; nil if it never was.
    public var timeToFirstByteNanoseconds: UInt64?
    /// From the request head to the end of the response (or of the connection).
    public var durationNanoseconds: UInt64
    /// The id of the fault rule that fired for this request, if any.
    public var faultRuleID: String?
    /// Whether the whole response was sent as declared (false for truncation, a
    /// stall cut off by the client, a connection that closed mid-response, or a 400 for a
    /// request that could not be parsed, which NIO sends before closing).
    public var completed: Bool
    /// Why the origin refused the request without an answer (its connection was reset),
    /// e.g. it came straight to the origin instead of through the link conditioner while
    /// `OriginConfiguration.requiresProxyHeader` is set; `status` is then 0.
    public var rejection: String?
    /// The origin an intercepting proxy forwarded the exchange to (`https://host:port` or
    /// `http://host:port`, `--intercept`); nil for the fixture origin's own answers.
    public var host: String?
    /// An intercepted exchange: the SHA-256 (hex) of the body bytes delivered to the app,
    /// all `bytesSent` of them, taken as they passed through the proxy.
    public var bodySHA256: String?
    /// An intercepted exchange the real origin did not answer: why (its certificate not
    /// trusted, a refused connection, a timeout); the app was answered 502 with it.
    public var upstreamError: String?

    /// Creates a record.
    public init(
        connectionID: UInt64, interface: String?, proxySource: String?, method: String, path: String,
        range: String?, status: Int, bytesSent: Int, startedAtNanoseconds: UInt64,
        timeToFirstByteNanoseconds: UInt64?, durationNanoseconds: UInt64, faultRuleID: String?, completed: Bool,
        rejection: String? = nil, host: String? = nil, bodySHA256: String? = nil, upstreamError: String? = nil
    ) {
        self.host = host
        self.bodySHA256 = bodySHA256
        self.upstreamError = upstreamError
        self.connectionID = connectionID
        self.interface = interface
        self.proxySource = proxySource
        self.method = method
        self.path = path
        self.range = range
        self.status = status
        self.bytesSent = bytesSent
        self.startedAtNanoseconds = startedAtNanoseconds
        self.timeToFirstByteNanoseconds = timeToFirstByteNanoseconds
        self.durationNanoseconds = durationNanoseconds
        self.faultRuleID = faultRuleID
        self.completed = completed
        self.rejection = rejection
    }
}
